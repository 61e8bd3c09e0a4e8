"""Focus memory (Mobile-Agent-v2): values the task needs later, captured when they are seen.

A temperature read in the weather app must still be known when the team types it into a
message three screens later, after the weather app is gone. The memory keeps such values under
a key that says where they came from, so a decider can ask for "the value that was at this
element of this state" rather than re-reading a screen it has left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Value-like texts worth remembering even without a hint from the graph: temperatures, prices,
#: times, dates, percentages.
VALUE_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"-?\d+(?:\.\d+)?\s?°\s?[CF]?"),
    re.compile(r"[$€£]\s?\d+(?:[.,]\d{2})?"),
    re.compile(r"\b\d{1,2}:\d{2}\s?(?:AM|PM|am|pm)?\b"),
    re.compile(r"\b\d+(?:\.\d+)?\s?%"),
)


@dataclass(frozen=True, slots=True)
class FocusValue:
    key: str
    value: str
    app: str | None
    step: int


@dataclass
class FocusMemory:
    values: dict[str, FocusValue] = field(default_factory=dict)

    def remember(self, key: str, value: str, app: str | None, step: int) -> None:
        self.values[key] = FocusValue(key, value, app, step)

    def recall(self, key: str) -> str | None:
        found = self.values.get(key)
        return found.value if found else None

    def latest(self, prefix: str = "") -> FocusValue | None:
        matching = [v for k, v in self.values.items() if k.startswith(prefix)]
        return max(matching, key=lambda v: v.step, default=None)

    def capture_values(self, texts: tuple[str, ...], app: str | None, step: int) -> None:
        """Remember every value-like text on screen under ``value:<app>:<text>``."""
        for text in texts:
            for pattern in VALUE_PATTERNS:
                match = pattern.search(text)
                if match:
                    self.remember(f"value:{app}:{match.group(0)}", match.group(0), app, step)

    def describe(self) -> list[str]:
        return [
            f"{v.key} = {v.value!r} (seen in {v.app} at step {v.step})"
            for v in self.values.values()
        ]
