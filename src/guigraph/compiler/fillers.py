"""Slot fillers: who finds, for a new task, the value that takes a recorded value's place.

Binding a recorded run to a task (``script.bind``) asks, slot by slot, "the run typed 'Meds'
for 'Set an alarm for 06:30 called Meds': what does 'set an alarm for 07:30 called laundry'
give there?". One protocol, two answers:

- :class:`RuleFiller`, the model-free default: the typed rules of ``slots.slot_candidates``
  (alignment with the recorded instruction, the site's known values, set-off texts);
- :class:`ModelFiller`: one structured-output call per task (``prepare``, given the recorded
  runs the task may follow) asks a model for every slot of those runs at once, the reply's
  schema built from the slots' types (``graph.slot_types``). Each value it gives is checked
  by the same type, must be words the task says, and must not be of another kind there; a
  value refused, or not given, is the rule filler's to find.

The filler in use is a context (``using``), set around retrieval and planning by the team,
so the binder below them needs no parameter for it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from guigraph.compiler.slots import SlotRequest, slot_candidates
from guigraph.errors import GuigraphError, ResponseParseError

if TYPE_CHECKING:
    from guigraph.graph.records import SlotKey, Trace
    from guigraph.graph.slot_types import SlotType
    from guigraph.llm.client import ChatClient

log = logging.getLogger(__name__)

#: Slots asked about in one call, at most (a long prompt costs more than the rules save).
MAX_SLOTS = 24


class SlotFiller(Protocol):
    def prepare(self, instruction: str, donors: Sequence[Trace]) -> None:
        """Before binding: the task, and the recorded runs it may follow."""

    def fill(self, request: SlotRequest) -> str | None:
        """The task's value for the slot, or None if the task gives none.

        A filler may also rank several values: ``candidates(request)``, the values the slot
        may take, best first, each with its rank (0: the best), worked out as they are taken
        (most slots take only the first). One without it gives its one value."""


class RuleFiller:
    """The typed rules: no model, no preparation."""

    def prepare(self, instruction: str, donors: Sequence[Trace]) -> None:
        return None

    def fill(self, request: SlotRequest) -> str | None:
        return next(slot_candidates(request), (None, 0))[0]

    def candidates(self, request: SlotRequest) -> Iterator[tuple[str, int]]:
        return slot_candidates(request)


_ACTIVE: ContextVar[SlotFiller | None] = ContextVar("slot_filler", default=None)
_RULES = RuleFiller()


def candidates(request: SlotRequest, filler: SlotFiller | None = None) -> Iterator[tuple[str, int]]:
    """The values of ``filler`` (the active one unless given) for the slot, best first: its
    own ranking, or its one value for a filler that gives only one."""
    filler = filler or active()
    ranked = getattr(filler, "candidates", None)
    if ranked is not None:
        return cast(Iterator[tuple[str, int]], ranked(request))
    value = filler.fill(request)
    return iter([] if value is None else [(value, 0)])


def active() -> SlotFiller:
    """The filler of the task being bound (the rule filler unless one is set)."""
    return _ACTIVE.get() or _RULES


@contextmanager
def using(filler: SlotFiller | None) -> Iterator[None]:
    token = _ACTIVE.set(filler)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


@dataclass(frozen=True)
class _Asked:
    """A slot put to the model: its name in the reply, and its type."""

    name: str
    recorded: str
    recorded_instruction: str
    slot_type: SlotType | None


@dataclass
class FillerCounts:
    """What the model filler did, for a run's report: its calls and why any failed, the values
    it gave and why any were refused."""

    calls: int = 0
    failed_calls: int = 0  # every failed call, of the three kinds below
    failed_timeout: int = 0  # no reply in time
    failed_unparsed: int = 0  # a reply that is no JSON object (cut short, or prose)
    failed_server: int = 0  # any other failure (unreachable, an HTTP error)
    answered: int = 0  # values the model gave and the checks accepted
    refused: int = 0  # values the model gave and the checks refused, of the three kinds below
    refused_unsaid: int = 0  # not words of the task
    refused_type: int = 0  # not of the slot's type (a name for a time)
    refused_kind: int = 0  # of another kind where the slot is (a city where a product goes)
    unanswered: int = 0  # slots the model gave no value for

    def to_dict(self) -> dict[str, int]:
        return dict(vars(self))

    def failed(self, error: GuigraphError | None) -> None:
        """A call that failed with ``error`` (None: its reply was JSON but no object)."""
        self.failed_calls += 1
        if error is None or isinstance(error, ResponseParseError):
            self.failed_unparsed += 1
        elif _timed_out(error):
            self.failed_timeout += 1
        else:
            self.failed_server += 1

    def describe(self) -> str:
        return (
            f"{self.calls} call(s) ({self.failed_calls} failed: {self.failed_timeout} timed "
            f"out, {self.failed_unparsed} not JSON, {self.failed_server} other); "
            f"{self.answered} value(s) taken, {self.refused} refused ({self.refused_unsaid} "
            f"not said by the task, {self.refused_type} not of the slot's type, "
            f"{self.refused_kind} of another kind there), {self.unanswered} not given "
            "(the rules filled those)"
        )


def _timed_out(error: BaseException) -> bool:
    """A call given up for want of a reply in time (the SDK's timeout, or ours)."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, TimeoutError) or type(cause).__name__ == "APITimeoutError":
            return True
        cause = cause.__cause__
    return False


@dataclass
class ModelFiller:
    """One structured-output call per task; the rules where the model's value is refused."""

    client: ChatClient
    types: Mapping[SlotKey, SlotType]
    fallback: SlotFiller = field(default_factory=RuleFiller)
    counts: FillerCounts = field(default_factory=FillerCounts)
    #: (recorded instruction, recorded value) -> the model's value (None: it gave none).
    _answers: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _types: dict[tuple[str, str], SlotType | None] = field(default_factory=dict)
    _prepared: str | None = None

    def prepare(self, instruction: str, donors: Sequence[Trace]) -> None:
        if instruction == self._prepared:
            return
        self._prepared = instruction
        self._answers.clear()
        asked = self._slots(donors)
        if not asked:
            return
        reply = self._ask(instruction, asked)
        if reply is None:  # a failed call: every slot is the rules' (none counted as not given)
            return
        for slot in asked:
            key = (slot.recorded_instruction, slot.recorded)
            self._types[key] = slot.slot_type
            self._answers[key] = _given(reply.get(slot.name))

    def _slots(self, donors: Sequence[Trace]) -> list[_Asked]:
        asked: dict[tuple[str, str], _Asked] = {}
        for trace in donors:
            for key, value in trace.values.items():
                pair = (trace.instruction, value)
                if value and pair not in asked and len(asked) < MAX_SLOTS:
                    name = f"slot{len(asked) + 1}"
                    asked[pair] = _Asked(name, value, trace.instruction, self.types.get(key))
        return list(asked.values())

    def _ask(self, instruction: str, asked: Sequence[_Asked]) -> dict[str, Any] | None:
        from guigraph.llm.messages import user

        lines = [
            f'{slot.name}: in "{slot.recorded_instruction}" the value was "{slot.recorded}"'
            + (f" ({slot.slot_type.describe()})" if slot.slot_type else "")
            for slot in asked
        ]
        prompt = (
            f'New task: "{instruction}"\n'
            "Recorded tasks gave these values to slots:\n" + "\n".join(lines) + "\n"
            "For each slot, give the words of the new task that take the recorded value's "
            "place, exactly as the new task writes them, or null if the new task says none."
        )
        schema = {
            "type": "object",
            "properties": {slot.name: {"type": ["string", "null"]} for slot in asked},
            "required": [slot.name for slot in asked],
        }
        self.counts.calls += 1
        try:
            reply = self.client.complete_json([user(prompt)], json_schema=schema)
        except GuigraphError as exc:  # a failed call leaves every slot to the rules
            self.counts.failed(exc)
            log.info("slot filler: the model call failed (%s); the rules fill the slots", exc)
            return None
        if not isinstance(reply, dict):
            self.counts.failed(None)
            log.info("slot filler: the model's reply is no object; the rules fill the slots")
            return None
        return reply

    def fill(self, request: SlotRequest) -> str | None:
        key = (request.recorded_instruction, request.recorded)
        if key not in self._answers:
            return self.fallback.fill(request)
        value = self._answers[key]
        if value is None:
            self.counts.unanswered += 1
            return self.fallback.fill(request)
        said = as_said(value, request.instruction)
        refusal = self._refusal(said, self._types.get(key), request)
        if refusal is not None:
            self.counts.refused += 1
            setattr(self.counts, refusal, getattr(self.counts, refusal) + 1)
            return self.fallback.fill(request)
        self.counts.answered += 1
        return said

    def candidates(self, request: SlotRequest) -> Iterator[tuple[str, int]]:
        """The model's value first (where taken), then the rules' other values after it."""
        own = self.fill(request)
        if own is not None:
            yield own, 0
        for value, rank in candidates(request, self.fallback):
            if own is None or value.lower() != own.lower():
                yield value, rank + (own is not None)

    @staticmethod
    def _refusal(said: str | None, slot_type: SlotType | None, request: SlotRequest) -> str | None:
        """Why the value the task says for the model (None: it does not) is refused, as the
        count it adds to; None if it is taken."""
        if said is None:
            return "refused_unsaid"
        if slot_type is not None and not slot_type.accepts(said):
            return "refused_type"
        if request.foreign is not None and request.foreign(said):
            return "refused_kind"
        return None


def _given(value: Any) -> str | None:
    """A value of the reply as text (a number given as one is given), or None for none."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    return (value.strip() or None) if isinstance(value, str) else None


def as_said(value: str, instruction: str) -> str | None:
    """``value`` as the instruction writes it (its words, case aside), or None where the
    instruction does not say it: a model's value is a span of the task, never its invention."""
    words = [re.escape(w) for w in value.split()]
    if not words:
        return None
    pattern = re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)
    found = pattern.search(instruction)
    return found.group(0) if found else None
