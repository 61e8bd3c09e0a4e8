"""The DokuWiki demo: a private wiki, a person's demonstrations, the graph, new values and wordings.

A private DokuWiki (``envs.web.dokuwiki``) serves the task file's workflows. For each workflow a
scripted person records demonstrations through the web recorder with real input (hesitation, a
slip corrected, an extra click on nothing); the knowledge base is built from that folder as
``guigraph build`` builds it; a fresh model-free team then runs each workflow on values no
demonstration used (``new_values``) and on wordings no demonstration used (``new_wordings``, the
development set; ``frozen_wordings``, the set run only for a reported figure). The wiki's own
files decide success. Each case is one line of ``results.jsonl`` in the run folder: a killed run
resumes where it stopped.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guigraph.envs.web import dokuwiki_values as values
from guigraph.envs.web import taskfile
from guigraph.envs.web.dokuwiki import TASKS, DokuWiki
from guigraph.errors import ConfigError, GuigraphError
from guigraph.eval.world_demo import Reporter, _Quiet

RESULTS = "results.jsonl"


@dataclass(frozen=True)
class DokuWikiDemoConfig:
    demos: int = 6
    cases: int = 8
    workflows: tuple[str, ...] = values.WORKFLOWS
    splits: tuple[str, ...] = values.SPLITS
    memories: tuple[str, ...] = ("graph", "trace")
    max_steps: int = 30
    person_seed: int = 0
    #: Called with each finished case's row (the bench prints them).
    on_case: Callable[[dict[str, Any]], None] = field(default=lambda row: None, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.demos <= 6 or not 1 <= self.cases <= 8:
            raise ConfigError("DokuWiki: --demos takes 1..6 and cases per split 1..8")
        for name, given, known in (
            ("workflow", self.workflows, values.WORKFLOWS),
            ("split", self.splits, values.SPLITS),
            ("memory", self.memories, ("graph", "trace", "none")),
        ):
            if unknown := [g for g in given if g not in known]:
                raise ConfigError(f"unknown {name} {unknown[0]!r}: known are {', '.join(known)}")


def run_dokuwiki_demo(
    out: Path, config: DokuWikiDemoConfig, reporter: Reporter | None = None
) -> dict[str, Any]:
    """Record, build and evaluate in ``out``; the report: ``tasks`` → workflow → split →
    memory → ``{sr, episodes}``, ``mean_sr`` → memory, and ``by_split`` → split → memory."""
    reporter = reporter or _Quiet()
    out.mkdir(parents=True, exist_ok=True)
    tasks = taskfile.load(TASKS)
    password = secrets.token_urlsafe(12)  # a throwaway instance's admin: never written
    with DokuWiki(password, root=out / "wiki") as wiki:
        given = {"base": wiki.base_url, "wiki": str(wiki.root), "password": password}
        record(tasks, wiki, given, config, out / "logs", reporter)
        build(out)
        rows = evaluate(tasks, given, config, out / RESULTS, out / "kb", reporter)
    return summarize(rows, config)


def record(
    tasks: taskfile.TaskFile, wiki: DokuWiki, given: dict[str, str], config: DokuWikiDemoConfig,
    logs: Path, reporter: Reporter,
) -> None:  # fmt: skip
    """Each workflow's demonstrations; those a killed run recorded are kept (``recorded.json``).
    A fresh wiki starts from the task file's pages, so a demonstration made again fits it."""
    from guigraph.envs.web.dokuwiki_person import demonstrate

    done_file = logs / "recorded.json"
    done = set(json.loads(done_file.read_text())) if done_file.is_file() else set()
    keys = [f"{w}/{i}" for w in config.workflows for i in range(config.demos)]
    advance = reporter.stage("recording demonstrations", len(keys), sum(k in done for k in keys))
    for key in keys:
        if key in done:
            continue
        workflow, index = key.split("/")[0], int(key.split("/")[1])
        drawn = draw_demonstration(tasks, given, workflow, index)
        demonstrate(wiki.base_url, workflow, drawn.values, drawn.task.instruction,
                    given["password"], logs, seed=config.person_seed * 1000 + index)  # fmt: skip
        done.add(key)
        done_file.write_text(json.dumps(sorted(done)))
        advance()


def draw_demonstration(
    tasks: taskfile.TaskFile, given: dict[str, str], workflow: str, index: int
) -> taskfile.Drawn:
    """Demonstration ``index`` of ``workflow``: the task file's own wordings in turn, the
    values of case ``index``. The golden corpus names a KB's recorded runs by it."""
    spec = tasks.spec(workflow)
    wording = spec.instructions[index % len(spec.instructions)]
    chosen = values.values_for(workflow, index)
    return tasks.draw(workflow, index, {**given, **chosen}, instruction=wording)


def draw_case(
    tasks: taskfile.TaskFile, given: dict[str, str], wordings: dict[str, Any], workflow: str,
    split: str, index: int, round_: int = 0,
) -> taskfile.Drawn:  # fmt: skip
    """Case ``index`` of ``split`` in evaluation round ``round_`` (one per memory): its
    wording and its values, as the bench runs it and the golden corpus plans it."""
    case = values.FIRST_CASE[split] + index
    own = tasks.spec(workflow).instructions
    wording = values.wording(own, wordings, workflow, split, index)
    chosen = values.values_for(workflow, case, round_)
    return tasks.draw(workflow, case, {**given, **chosen}, instruction=wording)


def build(out: Path) -> None:
    from guigraph.graph.from_logs import build_from_logs

    if not (out / "kb" / "kb.sqlite").is_file():
        summary, stats = build_from_logs(out / "logs", out / "kb")
        if summary.skipped or not stats["nodes"]:
            raise GuigraphError(f"{out / 'logs'}: the build took nothing: {summary.skipped[:2]}")


def evaluate(
    tasks: taskfile.TaskFile, given: dict[str, str], config: DokuWikiDemoConfig, path: Path,
    kb_dir: Path, reporter: Reporter,
) -> list[dict[str, Any]]:  # fmt: skip
    """Every case with every memory, each on values of its own (the wiki keeps what a case
    did); the rows already in ``path`` are kept and not run again."""
    from guigraph.agents.team import TeamOptions, rule_team
    from guigraph.choices import Memory
    from guigraph.compiler.index import GraphView
    from guigraph.envs.web.env import WebEnv
    from guigraph.graph.kb import KnowledgeBase

    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
    done = {r["key"] for r in rows}
    cases = _cases(config)
    advance = reporter.stage("evaluating", len(cases), sum(c[-1] in done for c in cases))
    wordings = values.load_wordings()
    env = WebEnv(tasks=TASKS, params=given, timeout=20.0)
    try:
        with KnowledgeBase.open(kb_dir) as kb, path.open("a") as sink:
            view = GraphView.load(kb)
            for workflow, split, index, memory, key in cases:
                if key in done:
                    continue
                round_ = config.memories.index(memory)
                drawn = draw_case(tasks, given, wordings, workflow, split, index, round_)
                task = env.add_task(drawn)
                team = rule_team(kb, view, TeamOptions(memory=Memory(memory)))
                seed = values.FIRST_CASE[split] + index
                row = _run_case(env, team, task, seed, config.max_steps)
                row.update(key=key, workflow=workflow, split=split, memory=memory)
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                rows.append(row)
                config.on_case(row)
                advance()
    finally:
        env.close()
    return rows


def _cases(config: DokuWikiDemoConfig) -> list[tuple[str, str, int, str, str]]:
    return [
        (workflow, split, index, memory, f"{workflow}|{split}|{index}|{memory}")
        for workflow in config.workflows
        for split in config.splits
        for index in range(config.cases)
        for memory in config.memories
    ]


def _run_case(env: Any, team: Any, task: Any, case: int, max_steps: int) -> dict[str, Any]:
    from guigraph.agents.loop import Budget, run_episode

    started = time.monotonic()
    try:
        result = run_episode(env, team, task, seed=case, budget=Budget(max_steps=max_steps))
        verdict = env.evaluate()
        steps, reason, error = len(result.steps), result.reason, ""
    except Exception as exc:  # a broken page fails this case, not the run
        verdict, steps, reason, error = None, 0, "error", repr(exc)[:300]
    return {
        "instruction": task.instruction,
        "success": bool(verdict and verdict.success),
        "detail": verdict.detail if verdict else error,
        "steps": steps,
        "reason": reason,
        "seconds": round(time.monotonic() - started, 1),
    }


def summarize(rows: Sequence[dict[str, Any]], config: DokuWikiDemoConfig) -> dict[str, Any]:
    def rate(chosen: list[dict[str, Any]]) -> dict[str, Any]:
        wins = [bool(r["success"]) for r in chosen]
        return {"sr": round(sum(wins) / len(wins), 3) if wins else 0.0, "episodes": len(wins)}

    def where(**match: str) -> list[dict[str, Any]]:
        return [r for r in rows if all(r[k] == v for k, v in match.items())]

    return {
        "setup": {"world": "dokuwiki", "demos": config.demos, "cases": config.cases},
        "tasks": {
            w: {
                s: {m: rate(where(workflow=w, split=s, memory=m)) for m in config.memories}
                for s in config.splits
            }
            for w in config.workflows
        },
        "mean_sr": {m: rate(where(memory=m))["sr"] for m in config.memories},
        "by_split": {
            s: {m: rate(where(split=s, memory=m))["sr"] for m in config.memories}
            for s in config.splits
        },
    }
