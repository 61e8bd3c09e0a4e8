"""Running counts of scored steps: what every metric needs, one step at a time.

A STEPS file is scored as it is read, so memory grows with the number of episodes (a few
bytes per step for the step-to-line table), never with the file. The same counts serve
``summarize`` over a list in memory.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any


class Contradiction(ValueError):
    """Two records of one episode disagree (a step twice, two step lengths or categories)."""

    def __init__(self, message: str, field: str, expected: str, got: object):
        super().__init__(message)
        self.field = field
        self.expected = expected
        self.got = got


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


class _Episode:
    """One episode so far: which line gave each step (0: not yet), and whether all were right."""

    __slots__ = ("all_correct", "category", "line", "lines", "outside", "present", "step_length")

    def __init__(self, category: str, step_length: int, line: int):
        self.category = category
        self.step_length = step_length
        self.line = line
        self.lines = array("I", bytes(4 * max(step_length, 0)))
        self.outside: dict[int, int] = {}  # steps beyond step_length (in-memory callers only)
        self.present = 0
        self.all_correct = True

    def seen_on(self, step: int) -> int:
        if 0 <= step < len(self.lines):
            return self.lines[step]
        return self.outside.get(step, 0)

    def mark(self, step: int, line: int) -> None:
        if 0 <= step < len(self.lines):
            self.lines[step] = line
        else:
            self.outside[step] = line
        self.present += 1


class Tally:
    """Add scored steps one by one (``line`` numbers them for messages), then read the counts."""

    def __init__(self) -> None:
        #: [steps, correct, episodes, successes, incomplete] per category
        self.categories: dict[str, list[int]] = {}
        self.verdicts: dict[str, int] = {}
        self.steps = 0
        self._episodes: dict[str, _Episode] = {}

    def add(
        self,
        episode_id: str,
        step: int,
        category: str,
        step_length: int,
        is_correct: bool,
        info: str,
        line: int,
    ) -> None:
        episode = self._episodes.get(episode_id)
        if episode is None:
            episode = self._episodes[episode_id] = _Episode(category, step_length, line)
        else:
            _check_agrees(episode_id, episode, step, category, step_length)
        episode.mark(step, line)
        episode.all_correct = episode.all_correct and is_correct
        row = self.categories.get(category)
        if row is None:
            row = self.categories[category] = [0, 0, 0, 0, 0]
        row[0] += 1
        row[1] += is_correct
        self.verdicts[info] = self.verdicts.get(info, 0) + 1
        self.steps += 1

    def episodes(self) -> tuple[dict[str, bool], list[IncompleteEpisode]]:
        """Success of every episode SR can judge, and those it cannot (missing steps)."""
        outcomes: dict[str, bool] = {}
        incomplete: list[IncompleteEpisode] = []
        for episode_id, e in self._episodes.items():
            if e.present == e.step_length and not e.outside:
                outcomes[episode_id] = e.all_correct
            else:
                missing = tuple(i for i in range(e.step_length) if not e.seen_on(i))
                incomplete.append(
                    IncompleteEpisode(episode_id, e.category, e.step_length, e.present, missing)
                )
        return outcomes, incomplete

    def category_of(self, episode_id: str) -> str:
        return self._episodes[episode_id].category


def _check_agrees(
    episode_id: str, episode: _Episode, step: int, category: str, step_length: int
) -> None:
    first = episode.seen_on(step)
    if first:
        raise Contradiction(
            f"episode {episode_id} step {step} is scored twice",
            "step",
            f"each step once (also on line {first})",
            step,
        )
    if step_length != episode.step_length:
        raise Contradiction(
            f"episode {episode_id} has two step lengths",
            "step_length",
            f"{episode.step_length!r} as on line {episode.line} of the same episode",
            step_length,
        )
    if category != episode.category:
        raise Contradiction(
            f"episode {episode_id} has two categories",
            "category",
            f"{episode.category!r} as on line {episode.line} of the same episode",
            category,
        )
