"""Stagnation and loop detection: the team must notice when it is going round in circles.

After each step the monitor turns the recent history into feedback for the next decision:
repeated no-effect actions are banned in that state, and a state visited again and again makes
the team try something it has not tried there. An action the world refuses (a step error) had
no effect either; the same action refused again and again ends the episode with the world's
reason, instead of repeating to the step cap.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from guigraph.agents.roles import Feedback, HistoryEntry, OutcomeStatus
from guigraph.types import Action


class ProgressMonitor:
    def __init__(self, stagnation_limit: int = 3, revisit_limit: int = 3, refusal_limit: int = 3):
        self.stagnation_limit = stagnation_limit
        self.revisit_limit = revisit_limit
        self.refusal_limit = refusal_limit
        self.visits: Counter[str] = Counter()
        self.tried: dict[str, list[Action]] = defaultdict(list)
        self.refusals: Counter[Action] = Counter()
        self.no_effect_streak = 0
        #: Why the episode cannot go on, once it cannot ("" while it can).
        self.why_stuck = ""

    def refused(self, action: Action, error: str) -> None:
        """The world refused ``action`` with ``error``; the third time ends the episode."""
        self.refusals[action] += 1
        count = self.refusals[action]
        if count >= self.refusal_limit and not self.why_stuck:
            self.why_stuck = f"stuck: the world refused {_describe(action)} {count} times ({error})"

    def feedback_after(self, entry: HistoryEntry, error: str | None = None) -> Feedback:
        """Feedback for the step after ``entry`` (``error``: the world refused its action),
        about the state it led to."""
        feedback = Feedback()
        self.tried[entry.fingerprint_before].append(entry.action)
        self.visits[entry.fingerprint_after] += 1
        here = entry.fingerprint_after
        if error:
            self.refused(entry.action, error)
        if entry.outcome.status is OutcomeStatus.NO_EFFECT or error:
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
        if self.no_effect_streak >= 2 * self.stagnation_limit and not self.why_stuck:
            self.why_stuck = "stuck: no progress"
        return bool(self.why_stuck)


def _describe(action: Action) -> str:
    """An action in a few words, for the reason an episode ends."""
    text = action.type.value
    if action.point is not None:
        text += f" at ({action.point.x:.0f}, {action.point.y:.0f})"
    if action.text is not None:
        text += f" {action.text!r}"
    if action.app:
        text += f" {action.app!r}"
    return text
