"""STEPS files: one JSON object per scored step, and scoring them.

Each line has ``episode_id`` (str), ``step`` (int, 0-based), ``category`` (str),
``step_length`` (int), ``gt`` (official command string), ``pred`` (whatever the model wrote)
and ``sam2_bbox`` (``[x1, y1, x2, y2]`` or ``[]``). A bad line is an error naming the file,
the line number and the field, and so are contradictions between lines (a step twice, an
episode with two step lengths or categories).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

from guigraph.data.commands import action_to_text
from guigraph.errors import ActionError, DatasetError
from guigraph.eval.gcpause import paused_gc
from guigraph.eval.matching import MatchMode, Verdict, match_official, match_strict
from guigraph.eval.metrics import ScoredStep
from guigraph.types import Episode


class StepRecord(NamedTuple):
    episode_id: str
    step: int
    category: str
    step_length: int
    gt: str
    pred: str
    sam2_bbox: tuple[float, ...] = ()
    line: int = 0  # where it came from, for error messages


def step_record(episode: Episode, index: int, pred: str) -> StepRecord:
    """The record of one recorded step and a prediction for it (gt from the recorded action)."""
    step = episode.steps[index]
    box = () if step.sam2_bbox is None else tuple(step.sam2_bbox.as_list())
    gt = action_to_text(step.action)  # an OPEN_APP step (imported runs) keeps its name
    return StepRecord(
        episode.episode_id, index, episode.category, len(episode.steps), gt, pred, box
    )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


_NUMBER_TYPES = frozenset({int, float})  # exact types: a JSON true is not a coordinate


def parse_step_line(data: Any, where: str, line: int) -> StepRecord:
    """One decoded JSON line as a StepRecord; DatasetError naming ``where`` and the field."""
    if not isinstance(data, dict):
        raise DatasetError(where, None, "a JSON object per line", type(data).__name__)
    for key in ("episode_id", "category", "gt", "pred"):
        if not isinstance(data.get(key), str):
            raise DatasetError(where, key, "a string", data.get(key, "nothing"))
    step, length = data.get("step"), data.get("step_length")
    if not _is_int(step) or step < 0:
        raise DatasetError(where, "step", "an integer >= 0", data.get("step", "nothing"))
    if not _is_int(length) or length < 1:
        raise DatasetError(where, "step_length", "an integer >= 1", data.get("step_length"))
    if step >= length:
        raise DatasetError(where, "step", f"less than step_length ({length})", step)
    box = data.get("sam2_bbox") or ()
    if not isinstance(box, list | tuple) or (
        box and (len(box) != 4 or not set(map(type, box)) <= _NUMBER_TYPES)
    ):
        raise DatasetError(where, "sam2_bbox", "[x1, y1, x2, y2] of numbers or []", box)
    return StepRecord(
        data["episode_id"],
        step,
        data["category"],
        length,
        data["gt"],
        data["pred"],
        tuple(box),
        line,
    )


def read_steps(path: Path) -> list[StepRecord]:
    """Every record of a STEPS.jsonl file, checked for consistency between lines."""
    records: list[StepRecord] = []
    with paused_gc(), Path(path).open(encoding="utf-8") as lines:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            where = f"{path}:{number}"
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DatasetError(where, None, "a JSON object", exc.msg) from None
            records.append(parse_step_line(data, where, number))
    check_consistent(records, str(path))
    return records


def check_consistent(records: Iterable[StepRecord], source: str = "<input>") -> None:
    """Each (episode, step) once; one step length and one category per episode."""
    first: dict[str, StepRecord] = {}
    lines: dict[tuple[str, int], int] = {}
    for r in records:
        key = (r.episode_id, r.step)
        if key in lines:
            raise DatasetError(
                f"{source}:{r.line}", "step", f"each step once (also on line {lines[key]})", r.step
            )
        lines[key] = r.line
        head = first.setdefault(r.episode_id, r)
        for name in ("step_length", "category"):
            if getattr(r, name) != getattr(head, name):
                raise DatasetError(
                    f"{source}:{r.line}",
                    name,
                    f"{getattr(head, name)!r} as on line {head.line} of the same episode",
                    getattr(r, name),
                )


def score_records(
    records: Sequence[StepRecord], mode: MatchMode = "official", source: str = "<input>"
) -> list[ScoredStep]:
    """The verdict of every record, in input order."""
    if mode not in ("official", "strict"):
        raise ValueError(f"mode must be official or strict, got {mode!r}")
    match = match_official if mode == "official" else match_strict
    with paused_gc():
        return _score_all(records, match, source)


def _score_all(
    records: Sequence[StepRecord], match: Callable[..., Verdict], source: str
) -> list[ScoredStep]:
    scored: list[ScoredStep] = []
    append = scored.append
    # tuple.__new__ and tuple unpacking skip NamedTuple's Python-level __new__ and property
    # lookups: together they are a third of the per-step cost on this loop.
    make = tuple.__new__
    for episode_id, step, category, length, gt, pred, box, line in records:
        try:
            verdict = match(pred, gt, box)
        except ActionError as exc:
            raise DatasetError(f"{source}:{line}", "gt", "an official command", str(exc)) from None
        append(
            make(ScoredStep, (episode_id, step, category, length, verdict.is_correct, verdict.info))
        )
    return scored


def write_verdicts(path: Path, scored: Iterable[ScoredStep]) -> None:
    """One line per step: episode_id, step, is_correct ("yes"/"no"), info (verdict name)."""
    with Path(path).open("w", encoding="utf-8") as out:
        for s in scored:
            row = {
                "episode_id": s.episode_id,
                "step": s.step,
                "is_correct": "yes" if s.is_correct else "no",
                "info": s.info,
            }
            out.write(json.dumps(row) + "\n")


def write_steps(path: Path, records: Iterable[StepRecord]) -> None:
    """Write records as a STEPS.jsonl file (the ``line`` field is not stored)."""
    with Path(path).open("w", encoding="utf-8") as out:
        for r in records:
            row = {
                "episode_id": r.episode_id,
                "step": r.step,
                "category": r.category,
                "step_length": r.step_length,
                "gt": r.gt,
                "pred": r.pred,
                "sam2_bbox": list(r.sam2_bbox),
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
