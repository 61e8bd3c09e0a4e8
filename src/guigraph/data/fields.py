"""Reading JSON fields with errors that name the file and the field.

The episode reader and ``guigraph data check`` share one code path: the reader stops at the
first problem (``collect=False``), the checker keeps going and gathers every problem
(``collect=True``). Each getter returns None when a value is wrong, so that checking can go on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guigraph.errors import DatasetError


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a dataset folder: which file, which field, what was expected."""

    path: str
    field: str | None
    expected: str
    got: str | None = None

    @classmethod
    def from_error(cls, error: DatasetError) -> Problem:
        got = None if error.got is None else _short(error.got)
        return cls(error.path or "<input>", error.field, error.expected, got)

    @property
    def message(self) -> str:
        found = f", got {self.got}" if self.got is not None else ""
        return f"expected {self.expected}{found}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "field": self.field, "expected": self.expected, "got": self.got}


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class FieldReader:
    """Typed access to a JSON object's fields that raises or collects ``DatasetError``s."""

    def __init__(self, path: str | Path, *, collect: bool = False) -> None:
        self.path = str(path)
        self.collect = collect
        self.problems: list[Problem] = []
        #: What was read anyway after a repair (a box clipped, an element dropped).
        self.warnings: list[Problem] = []

    def warn(self, field: str | None, expected: str, got: object = None) -> None:
        """Something repaired, not refused: reading goes on, ``data check`` reports it."""
        self.warnings.append(Problem.from_error(DatasetError(self.path, field, expected, got)))

    def fail(self, field: str | None, expected: str, got: object = None) -> None:
        error = DatasetError(self.path, field, expected, got)
        if not self.collect:
            raise error
        self.problems.append(Problem.from_error(error))

    def absorb(self, error: DatasetError, field_prefix: str = "") -> None:
        """Re-home an error raised by a helper under this file and a field prefix."""
        field = f"{field_prefix}{error.field}" if error.field else field_prefix.rstrip(".")
        self.fail(field or None, error.expected, error.got)

    def mapping(self, data: Mapping[str, Any], key: str, field: str) -> Mapping[str, Any] | None:
        value = data.get(key)
        if not isinstance(value, Mapping):
            self.fail(field, "an object", value if key in data else "nothing")
            return None
        return value

    def string(
        self, data: Mapping[str, Any], key: str, field: str, *, required: bool = True
    ) -> str | None:
        if key not in data or data[key] is None:
            if required:
                self.fail(field, "a string", "nothing")
                return None
            return ""
        value = data[key]
        if not isinstance(value, str):
            self.fail(field, "a string", value)
            return None
        return value

    def loose_string(self, data: Mapping[str, Any], key: str) -> str:
        """Descriptive fields that some files store as numbers (sdk_version: 34)."""
        value = data.get(key)
        return "" if value is None else str(value)

    def integer(
        self, data: Mapping[str, Any], key: str, field: str, *, minimum: int | None = None
    ) -> int | None:
        value = data.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(field, "an integer", value if key in data else "nothing")
            return None
        if minimum is not None and value < minimum:
            self.fail(field, f"an integer >= {minimum}", value)
            return None
        return value
