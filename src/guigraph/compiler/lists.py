"""Enumerations: a recorded step repeated once per item of a list the task names.

"Select fzzqo, NYYyS82 and click Submit." was recorded as one tap per named checkbox, then
Submit. A run of consecutive taps of one kind (same action, same kind of element, same state)
whose labels are the consecutive items of one enumeration in the recorded instruction is a
loop over that list: bound to "Select 8ai, xpHrXXA, cy8fNnP and click Submit." it taps once
per item of the new list, however many there are, and goes on with the rest of the workflow.

The list is found in the new instruction between the words that framed the recorded one (the
word before it, the words after it up to the first that joins no items); its items are split
at commas and at the task language's list joiners (``Language.list_joiners``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from guigraph.compiler.slots import content_words
from guigraph.language import tables

if TYPE_CHECKING:
    from guigraph.compiler.script import Binding, ScriptStep

_WORD = re.compile(r"\w[\w'’-]*")
#: How many more words than the recorded run's longest item a new item may have: an item of
#: one list is of one kind; a long stretch of the sentence is no item.
ITEM_WORDS_MARGIN = 2


@dataclass(frozen=True, slots=True)
class ListRun:
    """Steps ``first`` .. ``first + count - 1`` of a script tap the items of one enumeration
    of the recorded instruction, in order."""

    first: int
    count: int
    #: The word right before the recorded list ("" where the instruction opens with it).
    before: str
    #: The words right after it, up to and with the first that joins no items ("and click").
    after: tuple[str, ...]
    #: Words of the recorded run's longest item.
    item_words: int


def _joiners() -> str:
    return "|".join(re.escape(w) for w in tables.default().list_joiners)


def _separator() -> str:
    """A comma, a joiner, or both ("A, B, and C"), as a regex."""
    joiners = _joiners()
    if not joiners:
        return r"\s*,\s*"
    return rf"(?:\s*,\s*(?:(?:{joiners})\s+)?|\s+(?:{joiners})\s+)"


def split_items(text: str) -> tuple[str, ...]:
    """The items of an enumeration ("A, B and C" -> A, B, C; "A" -> A); none for the
    language's word for no items ("nothing")."""
    text = text.strip().rstrip(".;:!?").strip()
    if not text or text.lower() in tables.default().empty_list_words:
        return ()
    parts = re.split(_separator(), text, flags=re.IGNORECASE)
    return tuple(part.strip() for part in parts if part.strip())


def find_run(steps: Sequence[ScriptStep], instruction: str) -> ListRun | None:
    """The longest run of same-kind taps whose labels the instruction enumerates, if any."""
    for start, end in _same_kind_blocks(steps):
        for size in range(end - start, 0, -1):
            for first in range(start, end - size + 1):
                labels = [s.template.target_label.strip() for s in steps[first : first + size]]
                span = _enumerated(labels, instruction)
                if span is not None:
                    return _run(first, labels, instruction, span)
    return None


#: (the ids of a script's steps, its instruction) -> (the steps, the language read in, its list
#: run): a recorded run's script, whole or a segment of it, is bound to every task that
#: retrieves it, and its list never changes. The steps are held, so their ids are not reused.
_RUNS: dict[
    tuple[tuple[int, ...], str], tuple[Sequence[ScriptStep], tables.Language, ListRun | None]
] = {}


def _recorded_run(steps: Sequence[ScriptStep], instruction: str) -> ListRun | None:
    """``find_run``, remembered per run of step objects (a segment is a new list of them)."""
    language = tables.default()
    key = (tuple(map(id, steps)), instruction)
    known = _RUNS.get(key)
    if known is not None and known[1] is language:
        return known[2]
    if len(_RUNS) >= 16384:
        _RUNS.clear()  # keep the memory bounded
    run = find_run(steps, instruction)
    _RUNS[key] = (steps, language, run)
    return run


def _same_kind_blocks(steps: Sequence[ScriptStep]) -> list[tuple[int, int]]:
    """Maximal [start, end) blocks of labelled taps of one action on one kind of element in
    one state, longest first."""
    blocks: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(steps) + 1):
        if i < len(steps) and _same_kind(steps[i - 1], steps[i]):
            continue
        if steps and _is_labelled_tap(steps[start]):
            blocks.append((start, i))
        start = i
    return sorted(blocks, key=lambda b: b[0] - b[1])


def _is_labelled_tap(step: ScriptStep) -> bool:
    return step.template.taps and bool(step.template.target_label.strip())


def _same_kind(a: ScriptStep, b: ScriptStep) -> bool:
    return (
        _is_labelled_tap(a)
        and _is_labelled_tap(b)
        and a.template.type is b.template.type
        and a.template.target_role == b.template.target_role
        and a.node == b.node
        and a.jumps_to is None  # a step that left the state ends the run
    )


def _enumerated(labels: Sequence[str], instruction: str) -> tuple[int, int] | None:
    """Where the instruction says ``labels`` as one enumeration, in the order it says them
    (a person may tick the boxes in the order the page shows them)."""
    lowered = instruction.lower()
    if len(set(labels)) < len(labels) or any(label.lower() not in lowered for label in labels):
        return None
    said = sorted(labels, key=lambda label: lowered.index(label.lower()))
    body = _separator().join(re.escape(label) for label in said)
    match = re.search(rf"(?<!\w){body}(?!\w)", instruction, flags=re.IGNORECASE)
    return match.span() if match else None


def _run(first: int, labels: Sequence[str], instruction: str, span: tuple[int, int]) -> ListRun:
    before = _WORD.findall(instruction[: span[0]])
    joiners = set(tables.default().list_joiners)
    after: list[str] = []
    for word in _WORD.findall(instruction[span[1] :]):
        after.append(word)
        if word.lower() not in joiners:
            break
    longest = max(len(label.split()) for label in labels)
    return ListRun(first, len(labels), before[-1] if before else "", tuple(after), longest)


def new_items(run: ListRun, instruction: str) -> tuple[str, ...] | None:
    """The items of the new instruction's list framed as the recorded one was: between the
    word before it and the words after it. None when no such list is said, when the recorded
    list had no words after it, or when a part is too long to be an item."""
    if not run.after:
        # A list that ended the recorded sentence has no words to close the new one: what
        # follows it there may be another clause ("... Cat Compilation and send it to Greta").
        return None
    opening = rf"(?<!\w){re.escape(run.before)}\s+" if run.before else r"^\s*"
    closing = r"[\s,]*" + r"[\s,]+".join(re.escape(w) for w in run.after) + r"(?!\w)"
    match = re.search(rf"{opening}(?P<items>.+?){closing}", instruction, flags=re.IGNORECASE)
    if match is None:
        return None
    said = match.group("items")
    items = split_items(said)
    if run.count == 1 and len(items) > 1 and "," not in said:
        # A recorded single value shows no list syntax: "X and like it" is a value and a
        # clause; only commas tell the items of a list the task names there.
        return None
    if any(len(item.split()) > run.item_words + ITEM_WORDS_MARGIN for item in items):
        return None
    return items


def repeat_per_item(binding: Binding, recorded_instruction: str, instruction: str) -> Binding:
    """``binding`` with its recorded list's step repeated once per item of the new list.

    A one-item list bound to a one-item list is left to the binder (a radio button named by
    the task is no loop); otherwise the run's steps become one per new item (none for the
    language's "nothing"), each tapping its item by name."""
    # Each instruction is read in its own language (a recording may be in another).
    with tables.using(tables.of(recorded_instruction)):
        run = _recorded_run(binding.recorded, recorded_instruction)
    with tables.using(tables.of(instruction)):
        items = new_items(run, instruction) if run is not None else None
    if run is None or items is None or (run.count == 1 and len(items) == 1):
        return binding
    end = run.first + run.count
    model, last = binding.steps[run.first], binding.steps[end - 1]
    repeated = [
        replace(model, label=item, open_value=False, jumps_to=None, replacements=())
        for item in items
    ]
    if repeated:
        repeated[-1] = replace(repeated[-1], jumps_to=last.jumps_to)
    # The binder could not place a recorded item that the new list does not say: those slots
    # are the loop's now, and every new item is a word of the task explained.
    unplaced = sum(step.open_value for step in binding.steps[run.first : end])
    claimed = {w for item in items for w in content_words(item)} & content_words(instruction)
    return replace(
        binding,
        steps=[*binding.steps[: run.first], *repeated, *binding.steps[end:]],
        claimed=binding.claimed | claimed,
        unfilled=binding.unfilled - unplaced,
    )
