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
class IncompleteEpisode:
    """An episode whose records do not cover all its steps, so SR cannot judge it."""

    episode_id: str
    category: str
    step_length: int
    present: int
    missing: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "category": self.category,
            "step_length": self.step_length,
            "present": self.present,
            "missing": list(self.missing),
        }


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


def episode_outcomes(
    steps: Iterable[ScoredStep],
) -> tuple[dict[str, bool], list[IncompleteEpisode]]:
    """Success of every episode SR can judge, and the episodes it cannot (missing steps).

    Raises ValueError on contradictory records (a step twice, two step lengths).
    """
    seen: dict[str, dict[int, bool]] = {}
    length: dict[str, int] = {}
    category: dict[str, str] = {}
    for s in steps:
        if s.episode_id not in seen:
            seen[s.episode_id] = {}
            length[s.episode_id] = s.step_length
            category[s.episode_id] = s.category
        elif length[s.episode_id] != s.step_length:
            raise ValueError(f"episode {s.episode_id} has two step lengths")
        verdicts = seen[s.episode_id]
        if s.step in verdicts:
            raise ValueError(f"episode {s.episode_id} step {s.step} is scored twice")
        verdicts[s.step] = s.is_correct
    outcomes: dict[str, bool] = {}
    incomplete: list[IncompleteEpisode] = []
    for episode_id, verdicts in seen.items():
        expected = length[episode_id]
        if len(verdicts) == expected and all(0 <= i < expected for i in verdicts):
            outcomes[episode_id] = all(verdicts.values())
        else:
            missing = tuple(i for i in range(expected) if i not in verdicts)
            incomplete.append(
                IncompleteEpisode(
                    episode_id, category[episode_id], expected, len(verdicts), missing
                )
            )
    return outcomes, incomplete


def group_score(steps: Sequence[ScoredStep]) -> GroupScore:
    return _score_group(steps)[0]


def _score_group(steps: Sequence[ScoredStep]) -> tuple[GroupScore, list[IncompleteEpisode]]:
    outcomes, incomplete = episode_outcomes(steps)
    correct = sum(1 for s in steps if s.is_correct)
    successes = sum(outcomes.values())
    score = GroupScore(
        ams=percent(correct, len(steps)),
        sr=percent(successes, len(outcomes)),
        steps=len(steps),
        correct=correct,
        episodes=len(outcomes),
        successes=successes,
        incomplete=len(incomplete),
    )
    return score, incomplete


def per_category(steps: Iterable[ScoredStep]) -> dict[str, GroupScore]:
    groups: dict[str, list[ScoredStep]] = {}
    for s in steps:
        groups.setdefault(s.category, []).append(s)
    return {name: group_score(group) for name, group in sorted(groups.items())}


def category_mean(categories: dict[str, GroupScore]) -> tuple[float, float]:
    """(AMS, SR) as the unweighted mean of the categories' rounded values."""
    values = list(categories.values())
    return (
        _numpy_round2(_plain_mean([c.ams for c in values])),
        _numpy_round2(_plain_mean([c.sr for c in values])),
    )


def action_type_correct(steps: Iterable[ScoredStep], mode: str = "official") -> int:
    wrong = {"action_fail"} if mode == "official" else {"action_fail", "invalid"}
    return sum(1 for s in steps if s.info not in wrong)


def text_counts(steps: Iterable[ScoredStep]) -> tuple[int, int]:
    """(type_correct, steps judged TYPE against TYPE)."""
    correct = total = 0
    for s in steps:
        if s.info.startswith("type_"):
            total += 1
            correct += s.info == "type_correct"
    return correct, total


def summarize(
    steps: Sequence[ScoredStep], aggregate: Aggregate = "pooled", mode: str = "official"
) -> Summary:
    """Every metric of a scored run. ``aggregate`` picks how the headline AMS/SR are formed."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
    categories = per_category(steps)
    overall, incomplete = _score_group(steps)
    if aggregate == "pooled":
        ams, sr = overall.ams, overall.sr
    else:
        ams, sr = category_mean(categories)
    type_ok = action_type_correct(steps, mode)
    text_ok, text_total = text_counts(steps)
    counts: dict[str, int] = {}
    for s in steps:
        counts[s.info] = counts.get(s.info, 0) + 1
    return Summary(
        aggregate=aggregate,
        mode=mode,
        ams=ams,
        sr=sr,
        steps=len(steps),
        episodes=overall.episodes,
        successes=overall.successes,
        per_category=categories,
        action_type_correct=type_ok,
        action_type_accuracy=percent(type_ok, len(steps)),
        text_correct=text_ok,
        text_total=text_total,
        text_accuracy=percent(text_ok, text_total) if text_total else None,
        verdict_counts=dict(sorted(counts.items())),
        incomplete_episodes=tuple(incomplete),
    )
