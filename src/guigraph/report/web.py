"""The report of ``guigraph eval web`` runs: SR per task, runs side by side, and the means.

Every number is recomputed from the runs' ``episodes.jsonl``. The rows are the tasks of the
runs' named sets (in the set's order); under them, the mean over each run's own set and over
the published sets (``browsergym``: 125, ``synapse``: 63), where a task a run did not
evaluate counts 0, as the field counts it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from guigraph.envs.web import tasksets
from guigraph.eval import web

if TYPE_CHECKING:
    from rich.table import Table

    from guigraph.report.runs import Run

DASH = "–"


@dataclass(frozen=True)
class WebScores:
    name: str
    task_set: str
    tasks: tuple[str, ...]  # the run's named set
    per_task: dict[str, dict[str, Any]]  # task -> sr (0..1), episodes, successes, steps
    means: dict[str, dict[str, Any]]  # chosen / browsergym / synapse -> mean_sr, tasks, ...


def is_web(run: Run) -> bool:
    return run.suite == "web"


def score_web(run: Run) -> WebScores:
    table = web.per_task(run.episodes)
    steps: dict[str, list[int]] = {}
    for row in run.episodes:
        steps.setdefault(str(row.get("task") or row.get("category")), []).append(
            int(row.get("steps") or 0)
        )
    for task, row in table.items():
        row["steps"] = round(sum(steps[task]) / len(steps[task]), 1)
    tasks = tuple(str(t) for t in run.config.get("tasks") or table)
    rates = {task: row["sr"] for task, row in table.items()}
    return WebScores(
        name=run.name,
        task_set=str(run.config.get("task_set") or "list"),
        tasks=tasks,
        per_task=table,
        means=web.means(rates, tasks),
    )


def task_rows(scores: list[WebScores]) -> list[str]:
    """Every task of the runs' sets, in the order of the first run's set, then the others'."""
    return list(dict.fromkeys(t for s in scores for t in s.tasks))


def mean_rows(scores: list[WebScores]) -> list[tuple[str, list[str]]]:
    """(label, one cell per run) for the run's own set and the published sets."""
    rows = []
    own = {f"{s.task_set} ({len(s.tasks)} tasks)" for s in scores}
    if len(own) == 1 and not any(s.task_set in tasksets.PUBLISHED for s in scores):
        label = own.pop()
        rows.append((f"mean: {label}", [f"{s.means['chosen']['mean_sr']:.2f}" for s in scores]))
    for name in tasksets.PUBLISHED:
        total = scores[0].means[name]["tasks"]
        cells = [
            f"{s.means[name]['mean_sr']:.2f} ({s.means[name]['evaluated']}/{total} run)"
            for s in scores
        ]
        rows.append((f"mean: {name} ({total} tasks)", cells))
    return rows


def _cell(score: WebScores, task: str) -> str:
    row = score.per_task.get(task)
    return DASH if row is None else f"{row['sr']:.2f}"


def _steps(score: WebScores, task: str) -> str:
    row = score.per_task.get(task)
    return DASH if row is None else f"{row['steps']}"


def markdown(scores: list[WebScores]) -> str:
    head = ["task", *(f"{s.name} SR" for s in scores), f"{scores[0].name} steps"]
    lines = ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * (len(head) - 1)]
    for task in task_rows(scores):
        cells = [f"`{task}`", *(_cell(s, task) for s in scores), _steps(scores[0], task)]
        lines.append("| " + " | ".join(cells) + " |")
    for label, cells in mean_rows(scores):
        lines.append("| " + " | ".join([f"**{label}**", *cells, ""]) + " |")
    return "\n".join(lines)


def rich_table(scores: list[WebScores]) -> Table:
    from rich.markup import escape
    from rich.table import Table

    episodes = ", ".join(
        f"{escape(s.name)}: {sum(r['episodes'] for r in s.per_task.values())} episodes"
        for s in scores
    )
    table = Table(
        title="MiniWoB++ success rate per task (the page's reward > 0)",
        caption=f"{episodes}; a task not run counts 0 in a mean",
    )
    table.add_column("task", no_wrap=True)
    for score in scores:
        table.add_column(f"{escape(score.name)}\nSR", justify="right")
    table.add_column("steps", justify="right")
    for task in task_rows(scores):
        table.add_row(task, *(_cell(s, task) for s in scores), _steps(scores[0], task))
    table.add_section()
    for label, cells in mean_rows(scores):
        table.add_row(label, *cells, "", style="bold")
    return table
