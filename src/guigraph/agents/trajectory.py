"""Callbacks that record and show a run: a trajectory folder, and live console lines.

A run folder holds ``task.json`` (with the plan), ``steps.jsonl`` (one line per step, written as
it happens, so a crashed run keeps what it did), ``screens/NNN.png`` (the screen after each
step) and ``result.json``. Nothing secret is written: model settings live elsewhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from guigraph.agents.loop import EpisodeResult, LoopStep
from guigraph.agents.records import plan_dict, result_dict, step_dict
from guigraph.agents.roles import Plan
from guigraph.types import Observation, Task

RUN_SCHEMA_VERSION = 1


class TrajectoryWriter:
    def __init__(self, run_dir: Path, screenshots: bool = True):
        self.run_dir = Path(run_dir)
        self.screenshots = screenshots

    def on_start(self, task: Task, plan: Plan, context: Any) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "screens").mkdir(exist_ok=True)
        header = {
            "schema_version": RUN_SCHEMA_VERSION,
            "task": task.to_dict(),
            "plan": plan_dict(plan),
        }
        _write_json(self.run_dir / "task.json", header)
        (self.run_dir / "steps.jsonl").write_text("")

    def on_step(self, record: LoopStep, observation: Observation) -> None:
        with (self.run_dir / "steps.jsonl").open("a") as out:
            out.write(json.dumps(step_dict(record)) + "\n")
        if self.screenshots and observation.has_screenshot:
            (self.run_dir / "screens" / f"{record.step:03d}.png").write_bytes(
                observation.png_bytes()
            )

    def on_end(self, result: EpisodeResult) -> None:
        _write_json(
            self.run_dir / "result.json",
            {"schema_version": RUN_SCHEMA_VERSION, **result_dict(result)},
        )


class ConsoleProgress:
    """Prints each step as it happens (rich)."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console(highlight=False)

    def on_start(self, task: Task, plan: Plan, context: Any) -> None:
        self.console.print(f"[bold]Task[/bold] {task.instruction}")
        for number, subgoal in enumerate(plan.subgoals, 1):
            self.console.print(f"  plan {number}. {subgoal.description}")

    def on_step(self, record: LoopStep, observation: Observation) -> None:
        rejected = sum(not a.verdict.approved for a in record.attempts)
        retries = f" [yellow]({rejected} rejected)[/yellow]" if rejected else ""
        self.console.print(f"[cyan]{record.step:>3}[/cyan] {record.narrative}{retries}")

    def on_end(self, result: EpisodeResult) -> None:
        status = "[green]finished[/green]" if result.finished else f"[red]{result.reason}[/red]"
        self.console.print(f"{status} after {len(result.steps)} steps in {result.seconds:.2f}s")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n")
