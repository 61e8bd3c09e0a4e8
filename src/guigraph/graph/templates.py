"""Recorded actions → edge action templates: name the target element, lift typed text to slots.

A template says *what* was touched (label, role, id of the UI element under the point, when
the data has a UI tree) so that a trace stays useful on another device or layout, and keeps the
point only as an example. Typed text found in the instruction becomes a named slot, so a trace
recorded for "Paris" can be replayed for "Rome".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from guigraph.graph.records import ActionTemplate, Slot, TextSource
from guigraph.types import Action, ActionType, Step, UIElement, element_keys

#: rapidfuzz partial_ratio from which typed text counts as coming from the instruction.
SLOT_MATCH_RATIO = 90.0
#: What a slot's value never starts or ends with: punctuation around a said value, and the
#: keys typed with it (Enter after a search, Tab to the next field: ``orchids\n``), which stay
#: in the template around the slot ("{text1}\n") so a new value is typed with them.
_AROUND_VALUE = " ,.;:-\n\t\b\x1b"
_KEYS = "\n\t\b\x1b"
#: ``{name}``: a parameter given at run time (single braces; ``{{x}}`` is text).
PLACEHOLDER = re.compile(r"((?<!\{)\{[A-Za-z_][A-Za-z0-9_]*\}(?!\}))")


def target_element(elements: tuple[UIElement, ...] | None, action: Action) -> UIElement | None:
    """The smallest element under the point, clickable ones first (the button, not its row)."""
    if not elements or action.point is None:
        return None
    under = [e for e in elements if e.bbox.contains(action.point)]
    if not under:
        return None
    clickable = [e for e in under if e.clickable or e.editable]
    pool = clickable or under
    return min(pool, key=lambda e: (e.bbox.width * e.bbox.height, e.label))


def target_name(element: UIElement) -> str:
    """What a touched element is called. A text field holding a value is called by its name
    (its label, else its id), not by what it holds: the editor of one page holds that page's
    text, the same editor on another page another text. A field with neither keeps its label."""
    if element.editable and element.text:
        name = element.content_desc or element.resource_id.rsplit("/", 1)[-1]
        if name:
            return name
    return element.label


def from_instruction(text: str, instruction: str) -> bool:
    from rapidfuzz import fuzz

    typed, said = text.strip().lower(), instruction.lower()
    if not typed:
        return False
    if typed in said:
        return True
    return len(typed) >= 3 and fuzz.partial_ratio(typed, said) >= SLOT_MATCH_RATIO


def screen_texts(earlier: Sequence[Step]) -> dict[str, str]:
    """Text -> key of every element seen earlier (its id, or its role and place where the
    world gives no ids), the latest sighting first."""
    seen: dict[str, str] = {}
    for step in reversed(earlier):
        elements = step.observation.elements or ()
        keys = element_keys(elements, step.observation.app)
        for element, key in zip(elements, keys, strict=True):
            text = element.text.strip()
            if len(text) >= 2:
                seen.setdefault(text.lower(), key)
    return seen


def split_typed_text(
    text: str, instruction: str, earlier: Sequence[Step], use_ui: bool
) -> list[tuple[str, TextSource | None]]:
    """The typed text as pieces ``(piece, source)``; source None for literal text.

    Typed text may be the instruction's value ("Paris"), a value read off an earlier screen
    (a temperature carried into a note: the world's, not the instruction's, so replaying must
    read it again from the element with the same id), or both ("Paris 32°C").
    """
    if from_instruction(text, instruction):
        return [(text, TextSource.instruction())]
    seen = screen_texts(earlier) if use_ui else {}
    if text.strip().lower() in seen:
        return [(text, TextSource.screen(seen[text.strip().lower()]))]
    # A parameter placeholder ("{password}": a secret typed at run time) is literal text,
    # whatever label on the screen shares its word.
    parts = [part for part in PLACEHOLDER.split(text) if part]
    pieces: list[tuple[str, TextSource | None]] = []
    for part in parts:
        cut: list[tuple[str, TextSource | None]] = [(part, None)]
        if not PLACEHOLDER.fullmatch(part):
            for shown in sorted(seen, key=len, reverse=True):
                if shown in instruction.lower():
                    continue
                source = TextSource.screen(seen[shown])
                cut = [piece for whole in cut for piece in _cut(whole, shown, source)]
        pieces += cut
    if not any(source for _, source in pieces):
        return [(text, None)]
    return [
        (piece, TextSource.instruction() if not source and _said(piece, instruction) else source)
        for piece, source in pieces
    ]


def _cut(
    piece: tuple[str, TextSource | None], shown: str, source: TextSource
) -> list[tuple[str, TextSource | None]]:
    text, current = piece
    if current:
        return [piece]
    match = re.search(rf"(?<!\w){re.escape(shown)}(?!\w)", text, re.IGNORECASE)
    if match is None:
        return [piece]
    before, after = text[: match.start()], text[match.end() :]
    out: list[tuple[str, TextSource | None]] = [(before, None)] if before else []
    out.append((match.group(0), source))
    return out + _cut((after, None), shown, source) if after else out


def _said(piece: str, instruction: str) -> bool:
    core = piece.strip(_AROUND_VALUE)
    return len(core) >= 2 and core.lower() in instruction.lower()


def action_template(
    step: Step,
    instruction: str,
    slots: list[Slot],
    use_ui: bool = True,
    earlier: Sequence[Step] = (),
) -> ActionTemplate:
    """The template of one step; appends to ``slots`` when its typed text becomes a slot.

    ``earlier`` are the episode's previous steps, where typed text may have been read.
    """
    action = step.action
    elements = step.observation.elements if use_ui else None
    element = target_element(elements, action)
    text = action.text
    sources: list[tuple[str, TextSource]] = []
    if action.type is ActionType.TYPE and text:
        parts = []
        for piece, source in split_typed_text(text, instruction, earlier, use_ui):
            if source is None:
                parts.append(piece)
                continue
            core = piece.strip(_KEYS) if source.from_screen else piece.strip(_AROUND_VALUE)
            slot = Slot(name=f"text{len(slots) + 1}", example=core, source=source)
            slots.append(slot)
            sources.append((slot.name, source))
            parts.append(piece.replace(core, "{" + slot.name + "}", 1))
        text = "".join(parts)
    return ActionTemplate(
        type=action.type,
        target_label=target_name(element) if element else "",
        target_role=element.class_name.rsplit(".", 1)[-1] if element else "",
        target_id=_key_of(element, elements, step.observation.app),
        point=(action.point.x, action.point.y) if action.point else None,
        direction=action.direction.value if action.direction else None,
        text=text,
        app=action.app,
        hint=step.low_level_instruction,
        text_sources=tuple(sources),
        keys=action.keys or (),
    )


def _key_of(
    element: UIElement | None, elements: Sequence[UIElement] | None, app: str | None
) -> str:
    """The touched element's key on its screen (``types.element_keys``), "" when none."""
    if element is None or not elements:
        return ""
    return element_keys(elements, app)[elements.index(element)]
