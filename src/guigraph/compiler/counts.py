"""Counted repeats: a recorded tap repeated as many times as a number the task says.

"Select 3 with the spinner and hit Submit." was recorded as three taps on the spinner's up
arrow, then Submit. A run of identical taps in one state whose length is the one number of
that size the recorded instruction says is a counted repeat: bound to "Select 7 with the
spinner ..." it taps seven times and goes on with the rest of the workflow.

The new number is read where the recorded one stood (between the same words). A number of the
other sign asks for the other control (the down arrow): this recording cannot do it, so the
binding counts one value unfilled and a recording of that sign ranks first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

from guigraph.compiler.slots import content_words

if TYPE_CHECKING:
    from guigraph.compiler.script import Binding, ScriptStep

_WORD = re.compile(r"\w[\w'’-]*")
#: A whole number as written in a sentence, with its sign ("-3", "−3", "+2", "7").
_NUMBER = re.compile(r"(?<![\w.,])([-+−]?)(\d+)(?![\w.,]\d)")
_MINUS = ("-", "−")
#: Fewer identical taps than this are no evidence of counting (one tap is a tap).
MIN_REPEATS = 2


@dataclass(frozen=True, slots=True)
class CountRun:
    """Steps ``first`` .. ``first + count - 1`` repeat one tap as many times as the recorded
    instruction's number between ``before`` and ``after`` says."""

    first: int
    count: int
    negative: bool
    before: str  # the word right before the number ("" where the instruction opens with it)
    after: str  # the word right after it ("" where the instruction ends with it)


def find_count_run(steps: Sequence[ScriptStep], instruction: str) -> CountRun | None:
    """The first run of identical taps whose length the instruction says as its one number of
    that size."""
    for first, end in _repeat_blocks(steps):
        said = [m for m in _NUMBER.finditer(instruction) if int(m.group(2)) == end - first]
        if len(said) != 1:
            continue
        number = said[0]
        before = _WORD.findall(instruction[: number.start()])
        after = _WORD.findall(instruction[number.end() :])
        return CountRun(
            first, end - first, number.group(1) in _MINUS,
            before[-1] if before else "", after[0] if after else "",
        )  # fmt: skip
    return None


def _repeat_blocks(steps: Sequence[ScriptStep]) -> list[tuple[int, int]]:
    """Maximal [start, end) blocks of at least ``MIN_REPEATS`` identical taps in one state."""
    blocks: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(steps) + 1):
        if i < len(steps) and _same_tap(steps[i - 1], steps[i]):
            continue
        if i - start >= MIN_REPEATS:
            blocks.append((start, i))
        start = i
    return blocks


def _same_tap(a: ScriptStep, b: ScriptStep) -> bool:
    return a.template.taps and a.template == b.template and a.node == b.node and a.jumps_to is None


class SaidCount(NamedTuple):
    """The number a new instruction says where the recorded one stood."""

    number: int
    negative: bool
    written: str  # as the instruction writes it, sign and all ("-8"): the word it explains


def new_count(run: CountRun, instruction: str) -> SaidCount | None:
    """The number the new instruction says where the recorded one stood; None when it says
    none there."""
    opening = rf"(?<!\w){re.escape(run.before)}\s+" if run.before else r"^\s*"
    closing = rf"\s*{re.escape(run.after)}(?!\w)" if run.after else r"\s*\W*$"
    match = re.search(rf"{opening}([-+−]?)(\d+){closing}", instruction, flags=re.IGNORECASE)
    if match is None:
        return None
    return SaidCount(int(match.group(2)), match.group(1) in _MINUS, match.group(1) + match.group(2))


def repeat_per_count(binding: Binding, recorded_instruction: str, instruction: str) -> Binding:
    """``binding`` with its counted repeat tapping as many times as the new number says."""
    if len(binding.steps) != len(binding.recorded):
        return binding  # another repeat already changed the steps: their places moved
    run = find_count_run(binding.recorded, recorded_instruction)
    said = new_count(run, instruction) if run is not None else None
    if run is None or said is None:
        return binding
    count, negative, written = said
    if count and negative != run.negative:
        return replace(binding, unfilled=binding.unfilled + 1)
    end = run.first + run.count
    model, last = binding.steps[run.first], binding.steps[end - 1]
    repeated = [replace(model, jumps_to=None) for _ in range(count)]
    if repeated:
        repeated[-1] = replace(repeated[-1], jumps_to=last.jumps_to)
    return replace(
        binding,
        steps=[*binding.steps[: run.first], *repeated, *binding.steps[end:]],
        # The number as written explains the task's word: "-8" is one word, the sign in it.
        claimed=binding.claimed | (content_words(written) & content_words(instruction)),
    )
