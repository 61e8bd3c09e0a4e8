"""The numbers of a report: Table I (AMS and SR per category and overall) and where steps fail.

Scores are recomputed from ``steps.jsonl`` with the project's official matcher and metrics
whenever the steps carry ground truth (replay runs), so a report never trusts a number it can
check. Live runs have no per-step ground truth: their SR comes from ``episodes.jsonl`` and their
AMS, when the suite defines one, from ``summary.json``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guigraph.types import CATEGORIES

if TYPE_CHECKING:
    from guigraph.report.runs import Run

#: The paper's short names for GUIOdyssey's six categories, in Table I's order.
SHORT_NAMES: dict[str, str] = dict(
    zip(
        CATEGORIES,
        ("Tool", "Information", "Shopping", "Media", "Social", "Multi-Apps"),
        strict=True,
    )
)
#: Step positions are grouped as 1, 2, ..., LAST_POSITION-1, then "LAST_POSITION+".
LAST_POSITION = 12


@dataclass(frozen=True)
class Cell:
    """AMS and SR of one category (or overall) in one run; None where the run has no value."""

    ams: float | None
    sr: float | None
    episodes: int


@dataclass(frozen=True)
class RunScores:
    name: str
    cells: dict[str, Cell]  # category -> cell
    overall: Cell
    aggregate: str  # how the overall row is formed: pooled, category-mean, or summary.json
    source: str  # "steps.jsonl" (recomputed) or "episodes.jsonl" / "summary.json"
    steps: int
    notes: tuple[str, ...] = ()
    #: Steps with a verdict, for the failure plots: (action type of the truth, position, ok).
    verdicts: tuple[tuple[str, int, bool], ...] = field(default=(), repr=False)


def short_name(category: str) -> str:
    return SHORT_NAMES.get(category, category)


def categories_of(scores: list[RunScores]) -> list[str]:
    """GUIOdyssey's six in the paper's order when present, then any other, sorted."""
    seen = {c for s in scores for c in s.cells}
    return [c for c in CATEGORIES if c in seen] + sorted(seen - set(CATEGORIES))


def aggregate_of(run: Run) -> str:
    """The random split is reported as the mean of the categories; other splits pooled."""
    config = run.config
    chosen = config.get("aggregate")
    if chosen in ("pooled", "category-mean"):
        return str(chosen)
    return "category-mean" if config.get("split") == "random" else "pooled"


def score_run(run: Run) -> RunScores:
    if any(isinstance(s.get("gt"), str) and isinstance(s.get("pred"), str) for s in run.steps):
        return _from_ground_truth(run)
    return _from_episodes(run)


def _from_ground_truth(run: Run) -> RunScores:
    from guigraph.eval.metrics import category_mean, summarize
    from guigraph.eval.steps import check_consistent, parse_step_line, score_records

    source = str(run.path / "steps.jsonl")
    settled = _settled(run)
    records = [
        # A step the model gave no answer for is scored as wrong, as ``guigraph score`` does.
        parse_step_line({**s, "pred": s.get("pred") or ""}, f"{source}:{line}", line)
        for s, line in zip(run.steps, run.step_lines, strict=True)
        if isinstance(s.get("gt"), str) and (settled is None or s["episode_id"] in settled)
    ]
    check_consistent(records, source)
    scored = score_records(records, "official", source)
    summary = summarize(scored, "pooled")
    overall = {
        "pooled": (summary.ams, summary.sr),
        "category-mean": category_mean(summary.per_category),
    }
    aggregate = aggregate_of(run)
    notes = [
        f"summary.json says AMS {claimed[0]:.2f} / SR {claimed[1]:.2f} ({name}); recomputed "
        f"from the steps: {overall[name][0]:.2f} / {overall[name][1]:.2f}"
        for name, claimed in _claims(run.summary)
        if not _close(overall[name], claimed)
    ]
    if settled is not None and len(records) < len(run.steps):
        unfinished = {s["episode_id"] for s in run.steps} - settled
        if unfinished:
            notes.append(f"{len(unfinished)} episodes still running or cut off: left out")
    if summary.incomplete_episodes:
        notes.append(
            f"{len(summary.incomplete_episodes)} episodes with missing steps left out of SR"
        )
    cells = {
        name: Cell(group.ams, group.sr, group.episodes)
        for name, group in summary.per_category.items()
    }
    verdicts = tuple(
        (_command_type(r.gt), r.step, s.is_correct) for r, s in zip(records, scored, strict=True)
    )
    return RunScores(
        name=run.name,
        cells=cells,
        overall=Cell(*overall[aggregate], summary.episodes),
        aggregate=aggregate,
        source="steps.jsonl",
        steps=len(records),
        notes=tuple(notes),
        verdicts=verdicts,
    )


def _settled(run: Run) -> set[str] | None:
    """Episodes whose line is in episodes.jsonl (their steps are final), or None when the
    folder has no episode lines (a bare steps file: every step counts)."""
    return {row["episode_id"] for row in run.episodes} if run.episodes else None


def _from_episodes(run: Run) -> RunScores:
    """Live runs: SR per category from episodes.jsonl; AMS from summary.json if it has one."""
    claimed = run.summary.get("per_category")
    claimed = claimed if isinstance(claimed, dict) else {}
    wins: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for row in run.episodes:
        if isinstance(row.get("success"), bool):
            category = str(row.get("category") or "")
            totals[category] += 1
            wins[category] += row["success"]
    cells = {}
    for category in sorted(set(totals) | set(claimed)):
        given = claimed.get(category)
        given = given if isinstance(given, dict) else {}
        sr = round(100 * wins[category] / totals[category], 2) if totals[category] else None
        cells[category] = Cell(_number(given.get("ams")), sr, totals[category])
    overall = Cell(
        _number(run.summary.get("ams")),
        round(100 * sum(wins.values()) / sum(totals.values()), 2) if totals else None,
        sum(totals.values()),
    )
    verdicts = tuple(
        (_action_type(s), s["step"], s["correct"])
        for s in run.steps
        if isinstance(s.get("correct"), bool)
    )
    return RunScores(
        name=run.name,
        cells=cells,
        overall=overall,
        aggregate="pooled",
        source="episodes.jsonl",
        steps=len(run.steps),
        verdicts=verdicts,
    )


def _claims(summary: dict[str, Any]) -> list[tuple[str, tuple[float, float]]]:
    """The overall numbers summary.json states, by how they were formed."""
    found = []
    named = summary.get("aggregate")
    pairs = [(named if named in ("pooled", "category-mean") else "pooled", summary)]
    if isinstance(summary.get("category_mean"), dict):
        pairs.append(("category-mean", summary["category_mean"]))
    for name, holder in pairs:
        ams, sr = _number(holder.get("ams")), _number(holder.get("sr"))
        if ams is not None and sr is not None:
            found.append((name, (ams, sr)))
    return found


def _close(pair: tuple[float, float], claimed: tuple[float, float]) -> bool:
    return abs(pair[0] - claimed[0]) < 0.005 and abs(pair[1] - claimed[1]) < 0.005


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _command_type(command: str) -> str:
    """The action type a command stands for, by its name ("CLICK: (1, 2)" -> "click")."""
    from guigraph.data.commands import COMMAND_TYPES

    name = command.split(":", 1)[0].strip().upper()
    kind = COMMAND_TYPES.get(name)
    return kind.value if kind is not None else "other"


def _action_type(step: dict[str, Any]) -> str:
    action = step.get("action")
    if isinstance(action, dict) and isinstance(action.get("type"), str):
        return action["type"]
    pred = step.get("pred")
    return _command_type(pred) if isinstance(pred, str) else "other"


def failures_by_type(scores: RunScores) -> dict[str, tuple[int, int]]:
    """Action type of the step (the truth's, or the prediction's in live runs) -> (failed, all)."""
    table: dict[str, list[int]] = {}
    for kind, _, ok in scores.verdicts:
        row = table.setdefault(kind, [0, 0])
        row[0] += not ok
        row[1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(table.items(), key=lambda kv: -kv[1][1])}


def failures_by_position(scores: RunScores) -> dict[str, tuple[int, int]]:
    """Step number (1-based; the last bucket holds the rest) -> (failed, all)."""
    table = {str(i): [0, 0] for i in range(1, LAST_POSITION)}
    table[f"{LAST_POSITION}+"] = [0, 0]
    for _, step, ok in scores.verdicts:
        key = str(step + 1) if step + 1 < LAST_POSITION else f"{LAST_POSITION}+"
        table[key][0] += not ok
        table[key][1] += 1
    return {k: (v[0], v[1]) for k, v in table.items() if v[1]}
