"""Stagnation and loop detection: the team must notice when it is going round in circles.

After each step the monitor turns the recent history into feedback for the next decision:
repeated no-effect actions are banned in that state, and a state visited again and again makes
the team try something it has not tried there.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from guigraph.agents.roles import Feedback, HistoryEntry, OutcomeStatus
from guigraph.types import Action


class ProgressMonitor:
    def __init__(self, stagnation_limit: int = 3, revisit_limit: int = 3):
        self.stagnation_limit = stagnation_limit
        self.revisit_limit = revisit_limit
        self.visits: Counter[str] = Counter()
        self.tried: dict[str, list[Action]] = defaultdict(list)
        self.no_effect_streak = 0

    def feedback_after(self, entry: HistoryEntry) -> Feedback:
        """Feedback for the step after ``entry``, about the state it led to."""
        feedback = Feedback()
        self.tried[entry.fingerprint_before].append(entry.action)
        self.visits[entry.fingerprint_after] += 1
        here = entry.fingerprint_after
        if entry.outcome.status is OutcomeStatus.NO_EFFECT:
            self.no_effect_streak += 1
        else:
            self.no_effect_streak = 0
        if entry.outcome.status in (OutcomeStatus.NO_EFFECT, OutcomeStatus.FAILURE):
            feedback.add(f"Last action failed ({entry.outcome.note}).", entry.action)
        if self.no_effect_streak >= self.stagnation_limit:
            feedback.add(
                f"No progress for {self.no_effect_streak} steps: change approach "
                "(another element, scroll, go back)."
            )
        if self.visits[here] >= self.revisit_limit:
            feedback.add(f"This screen was visited {self.visits[here]} times: avoid a loop.")
            for action in self.tried[here]:
                feedback.banned.append(action)
        return feedback

    def stuck(self) -> bool:
        """True when the team cannot get anywhere; the loop then gives up with IMPOSSIBLE."""
        return self.no_effect_streak >= 2 * self.stagnation_limit
