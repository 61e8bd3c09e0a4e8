"""STEPS files: one JSON object per scored step, and scoring them.

Each line has ``episode_id`` (str), ``step`` (int, 0-based), ``category`` (str),
``step_length`` (int), ``gt`` (official command string), ``pred`` (whatever the model wrote)
and ``sam2_bbox`` (``[x1, y1, x2, y2]`` or ``[]``). A bad line is an error naming the file,
the line number and the field, and so are contradictions between lines (a step twice, an
episode with two step lengths or categories).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

from guigraph.data.commands import action_to_text
from guigraph.errors import ActionError, DatasetError
from guigraph.eval.gcpause import paused_gc
from guigraph.eval.matching import ActionMatch, MatchMode, match_official, match_strict
from guigraph.eval.metrics import ScoredStep
from guigraph.eval.tally import Contradiction, Tally
from guigraph.types import Episode


class PredictedStep(NamedTuple):
    episode_id: str
    step: int
    category: str
    step_length: int
    gt: str
    pred: str
    sam2_bbox: tuple[float, ...] = ()
    line: int = 0  # where it came from, for error messages

    def to_row(self) -> dict[str, object]:
        """The STEPS.jsonl line (``line`` is not stored)."""
        return {
            "episode_id": self.episode_id,
            "step": self.step,
            "category": self.category,
            "step_length": self.step_length,
            "gt": self.gt,
            "pred": self.pred,
            "sam2_bbox": list(self.sam2_bbox),
        }


def predicted_step(episode: Episode, index: int, pred: str) -> PredictedStep:
    """The record of one recorded step and a prediction for it (gt from the recorded action)."""
    step = episode.steps[index]
    box = () if step.sam2_bbox is None else tuple(step.sam2_bbox.as_list())
    gt = action_to_text(step.action)  # an OPEN_APP step (imported runs) keeps its name
    return PredictedStep(
        episode.episode_id, index, episode.category, len(episode.steps), gt, pred, box
    )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


_NUMBER_TYPES = frozenset({int, float})  # exact types: a JSON true is not a coordinate


def parse_step_line(data: Any, where: str, line: int) -> PredictedStep:
    """One decoded JSON line as a PredictedStep; DatasetError naming ``where`` and the field."""
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
    return PredictedStep(
        data["episode_id"],
        step,
        data["category"],
        length,
        data["gt"],
        data["pred"],
        tuple(box),
        line,
    )


def decode_line(raw: bytes, where: str) -> str:
    """One line of a JSONL file as text; DatasetError naming ``where`` when it is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        got = f"byte {exc.start}: {exc.reason}"
        raise DatasetError(where, None, "UTF-8 text", got) from None


def iter_steps(path: Path) -> Iterator[PredictedStep]:
    """The records of a STEPS.jsonl file one by one, each checked on its own (not against the
    others: ``check_consistent`` or a ``Tally`` does that)."""
    with Path(path).open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            where = f"{path}:{number}"
            text = decode_line(raw, where)
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DatasetError(where, None, "a JSON object", exc.msg) from None
            yield parse_step_line(data, where, number)


def read_steps(path: Path) -> list[PredictedStep]:
    """Every record of a STEPS.jsonl file, checked for consistency between lines."""
    with paused_gc():
        records = list(iter_steps(path))
    check_consistent(records, str(path))
    return records


def score_file(path: Path, mode: MatchMode = "official", verdicts: Path | None = None) -> Tally:
    """Score a STEPS.jsonl file as it is read; the running counts for ``summarize``.

    Memory grows with the episodes, not the lines. With ``verdicts``, one verdict per step is
    written to that file, which appears only when the whole input scored.
    """
    match = _matcher(mode)
    tally = Tally()
    partial = Path(f"{verdicts}.partial") if verdicts is not None else None
    try:
        with ExitStack() as stack:
            sink = None if partial is None else stack.enter_context(partial.open("w"))
            for record in iter_steps(path):
                scored = _score_one(record, match, str(path))
                _add(tally, scored, record.line, path)
                if sink is not None:
                    sink.write(_verdict_line(scored))
        if not tally.steps:
            raise DatasetError(path, None, "one JSON step record per line", "no records")
    except BaseException:
        if partial is not None:
            partial.unlink(missing_ok=True)
        raise
    if partial is not None and verdicts is not None:
        os.replace(partial, verdicts)
    return tally


def _add(tally: Tally, scored: ScoredStep, line: int, path: Path) -> None:
    try:
        tally.add(*scored, line)
    except Contradiction as exc:
        raise DatasetError(f"{path}:{line}", exc.field, exc.expected, exc.got) from None


def check_consistent(records: Iterable[PredictedStep], source: str = "<input>") -> None:
    """Each (episode, step) once; one step length and one category per episode."""
    first: dict[str, PredictedStep] = {}
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


def _matcher(mode: MatchMode) -> Callable[..., ActionMatch]:
    if mode not in ("official", "strict"):
        raise ValueError(f"mode must be official or strict, got {mode!r}")
    return match_official if mode == "official" else match_strict


def _score_one(record: PredictedStep, match: Callable[..., ActionMatch], source: str) -> ScoredStep:
    episode_id, step, category, length, gt, pred, box, line = record
    try:
        verdict = match(pred, gt, box)
    except ActionError as exc:
        raise DatasetError(f"{source}:{line}", "gt", "an official command", str(exc)) from None
    return tuple.__new__(
        ScoredStep, (episode_id, step, category, length, verdict.is_correct, verdict.info)
    )


def score_records(
    records: Sequence[PredictedStep], mode: MatchMode = "official", source: str = "<input>"
) -> list[ScoredStep]:
    """The verdict of every record, in input order."""
    match = _matcher(mode)
    with paused_gc():
        return _score_all(records, match, source)


def _score_all(
    records: Sequence[PredictedStep], match: Callable[..., ActionMatch], source: str
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


def _verdict_line(s: ScoredStep) -> str:
    row = {
        "episode_id": s.episode_id,
        "step": s.step,
        "is_correct": "yes" if s.is_correct else "no",
        "info": s.info,
    }
    return json.dumps(row) + "\n"


def write_verdicts(path: Path, scored: Iterable[ScoredStep]) -> None:
    """One line per step: episode_id, step, is_correct ("yes"/"no"), info (verdict name)."""
    with Path(path).open("w", encoding="utf-8") as out:
        for s in scored:
            out.write(_verdict_line(s))


def write_steps(path: Path, records: Iterable[PredictedStep]) -> None:
    """Write records as a STEPS.jsonl file (the ``line`` field is not stored)."""
    with Path(path).open("w", encoding="utf-8") as out:
        for r in records:
            out.write(json.dumps(r.to_row(), ensure_ascii=False) + "\n")
