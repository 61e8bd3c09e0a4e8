"""AMS, SR and the side metrics of GUIOdyssey, as pure functions over scored steps.

- AMS (action matching score) = correct steps / steps x 100.
- SR (success rate) = episodes with every step correct / episodes x 100. Only episodes whose
  records cover every step ``0..step_length-1`` can be judged; the official code drops the
  others silently, here they are excluded the same way *and* listed in the result.
- Aggregation: ``pooled`` over all steps and episodes (task/app/device splits), or
  ``category-mean``, the unweighted mean of the per-category values (the random split). The
  official code rounds each category to 2 decimals before averaging; so do we.
- Action-type accuracy = steps whose verdict is not ``action_fail`` / steps (official; an
  ``invalid`` step counts as type-correct there, strict mode does not count it); text
  accuracy = ``type_correct`` / steps judged as TYPE against TYPE.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from guigraph.eval.gcpause import paused_gc
from guigraph.eval.tally import IncompleteEpisode, Tally

__all__ = ["IncompleteEpisode", "Tally"]  # re-exported: they are part of the metrics' API

Aggregate = Literal["pooled", "category-mean"]
AGGREGATES: tuple[str, ...] = ("pooled", "category-mean")


class ScoredStep(NamedTuple):
    """One step with its verdict: the input of every metric here."""

    episode_id: str
    step: int
    category: str
    step_length: int
    is_correct: bool
    info: str


@dataclass(frozen=True, slots=True)
class GroupScore:
    """AMS and SR of one group of steps (a category, or everything)."""

    ams: float
    sr: float
    steps: int
    correct: int
    episodes: int  # episodes SR could judge
    successes: int
    incomplete: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "ams": self.ams,
            "sr": self.sr,
            "steps": self.steps,
            "correct": self.correct,
            "episodes": self.episodes,
            "successes": self.successes,
            "incomplete": self.incomplete,
        }


@dataclass(frozen=True, slots=True)
class Summary:
    aggregate: str
    mode: str
    ams: float
    sr: float
    steps: int
    episodes: int
    successes: int
    per_category: dict[str, GroupScore]
    action_type_correct: int
    action_type_accuracy: float
    text_correct: int
    text_total: int
    text_accuracy: float | None
    verdict_counts: dict[str, int]
    incomplete_episodes: tuple[IncompleteEpisode, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "aggregate": self.aggregate,
            "mode": self.mode,
            "ams": self.ams,
            "sr": self.sr,
            "steps": self.steps,
            "episodes": self.episodes,
            "successes": self.successes,
            "per_category": {k: v.to_dict() for k, v in self.per_category.items()},
            "action_type": {
                "correct": self.action_type_correct,
                "total": self.steps,
                "accuracy": self.action_type_accuracy,
            },
            "text": {
                "correct": self.text_correct,
                "total": self.text_total,
                "accuracy": self.text_accuracy,
            },
            "verdicts": dict(self.verdict_counts),
            "incomplete_episodes": [e.to_dict() for e in self.incomplete_episodes],
        }


def percent(part: int, whole: int) -> float:
    """``part / whole * 100`` rounded to 2 decimals in the official order of operations."""
    return round(part / whole * 100, 2) if whole else 0.0


def _numpy_round2(value: float) -> float:
    # np.round(x, 2) is rint(x * 100) / 100, which can differ from round(x, 2) in the last
    # digit; the official category mean uses numpy's.
    return round(value * 100) / 100


def _plain_mean(values: Sequence[float]) -> float:
    total = 0.0
    for value in values:  # left to right, as numpy does for short arrays (not fsum)
        total += value
    return total / len(values) if values else 0.0


def action_matching_score(steps: Sequence[ScoredStep]) -> float:
    return percent(sum(1 for s in steps if s.is_correct), len(steps))


def tally_of(steps: Iterable[ScoredStep]) -> Tally:
    """The running counts of steps in memory (each numbered by its position, from 1)."""
    tally = Tally()
    add = tally.add
    for line, s in enumerate(steps, start=1):
        add(*s, line)
    return tally


def episode_outcomes(
    steps: Iterable[ScoredStep],
) -> tuple[dict[str, bool], list[IncompleteEpisode]]:
    """Success of every episode SR can judge, and the episodes it cannot (missing steps).

    Raises ValueError on contradictory records (a step twice, two step lengths or categories).
    """
    return tally_of(steps).episodes()


def _group(steps: int, correct: int, episodes: int, successes: int, incomplete: int) -> GroupScore:
    return GroupScore(
        ams=percent(correct, steps),
        sr=percent(successes, episodes),
        steps=steps,
        correct=correct,
        episodes=episodes,
        successes=successes,
        incomplete=incomplete,
    )


class _Tally(NamedTuple):
    per_category: dict[str, GroupScore]
    overall: GroupScore
    incomplete: list[IncompleteEpisode]
    verdict_counts: dict[str, int]
    steps: int


def _tally(steps: Iterable[ScoredStep] | Tally) -> _Tally:
    """Everything summarize needs, from the running counts."""
    tally = steps if isinstance(steps, Tally) else tally_of(steps)
    counters = {name: list(row) for name, row in tally.categories.items()}
    outcomes, incomplete = tally.episodes()
    for episode_id, success in outcomes.items():
        row = counters[tally.category_of(episode_id)]
        row[2] += 1
        row[3] += success
    for episode in incomplete:
        counters[episode.category][4] += 1
    per_category = {name: _group(*counters[name]) for name in sorted(counters)}
    totals = [sum(row[i] for row in counters.values()) for i in range(5)]
    verdicts = dict(sorted(tally.verdicts.items()))
    return _Tally(per_category, _group(*totals), incomplete, verdicts, tally.steps)


def group_score(steps: Iterable[ScoredStep]) -> GroupScore:
    """AMS and SR pooled over all the steps given."""
    return _tally(steps).overall


def per_category(steps: Iterable[ScoredStep]) -> dict[str, GroupScore]:
    return _tally(steps).per_category


def category_mean(categories: dict[str, GroupScore]) -> tuple[float, float]:
    """(AMS, SR) as the unweighted mean of the categories' rounded values."""
    values = list(categories.values())
    return (
        _numpy_round2(_plain_mean([c.ams for c in values])),
        _numpy_round2(_plain_mean([c.sr for c in values])),
    )


def action_type_correct(verdict_counts: dict[str, int], mode: str = "official") -> int:
    """Steps whose action type was right: all but ``action_fail`` (and, strict, ``invalid``)."""
    wrong = verdict_counts.get("action_fail", 0)
    if mode != "official":
        wrong += verdict_counts.get("invalid", 0)
    return sum(verdict_counts.values()) - wrong


def text_counts(verdict_counts: dict[str, int]) -> tuple[int, int]:
    """(type_correct, steps judged TYPE against TYPE)."""
    correct = verdict_counts.get("type_correct", 0)
    return correct, correct + verdict_counts.get("type_fail", 0)


def summarize(
    steps: Iterable[ScoredStep] | Tally, aggregate: Aggregate = "pooled", mode: str = "official"
) -> Summary:
    """Every metric of a scored run (steps in memory, or the running counts of a file).

    ``aggregate`` picks how the headline AMS/SR are formed.
    """
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
    with paused_gc():
        tally = _tally(steps)
    overall, categories, counts = tally.overall, tally.per_category, tally.verdict_counts
    if aggregate == "pooled":
        ams, sr = overall.ams, overall.sr
    else:
        ams, sr = category_mean(categories)
    type_ok = action_type_correct(counts, mode)
    text_ok, text_total = text_counts(counts)
    return Summary(
        aggregate=aggregate,
        mode=mode,
        ams=ams,
        sr=sr,
        steps=tally.steps,
        episodes=overall.episodes,
        successes=overall.successes,
        per_category=categories,
        action_type_correct=type_ok,
        action_type_accuracy=percent(type_ok, tally.steps),
        text_correct=text_ok,
        text_total=text_total,
        text_accuracy=percent(text_ok, text_total) if text_total else None,
        verdict_counts=counts,
        incomplete_episodes=tuple(tally.incomplete),
    )
