"""record.js's element trees (``core.getDOMInfo``) as the web world's UI elements.

Each node has ``tag`` (``INPUT_text`` for an input of type text, ``t`` for a piece of its
parent's text), a box (``left``, ``top``, ``width``, ``height`` in page pixels), ``id``,
``classes``, ``text`` (an element whose children are all text), ``value``, ``focused`` and, on
the target of the event recorded with it, ``recordingTarget``. They map onto
:class:`UIElement` as ``envs.web.dom``'s walk of a live page does: role as ``class_name``,
accessible name (a field inside a ``<label>`` named by it), value, id or first class as
``resource_id``, box normalized to the task area; a password's value is never written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from guigraph.envs.web import miniwob
from guigraph.envs.web.dom import EDITABLE, NAMED_BY_TEXT, named_by_neighbours
from guigraph.geometry import NORM_MAX, BBox
from guigraph.types import UIElement

WIDTH, HEIGHT = miniwob.VIEWPORT
PASSWORD_SHOWN = "••••••••"

_INPUT_ROLES = {
    "checkbox": "checkbox", "radio": "radio", "button": "button", "submit": "button",
    "reset": "button", "image": "button", "range": "slider", "number": "spinbutton",
    "search": "searchbox",
}  # fmt: skip
_TAG_ROLES = {
    "a": "link", "button": "button", "select": "combobox", "textarea": "textbox", "img": "img",
    "h1": "heading", "h2": "heading", "h3": "heading", "h4": "heading", "h5": "heading",
    "h6": "heading", "label": "label", "li": "listitem", "td": "cell", "th": "cell",
    "option": "option", "ul": "list", "ol": "list", "table": "table", "canvas": "canvas",
    "svg": "img",
}  # fmt: skip
#: Roles named by their content, and whose inner elements are their label (as in dom.py).
_BY_CONTENT = frozenset(
    {"button", "link", "tab", "option", "menuitem", "heading", "cell", "listitem", "checkbox",
     "radio", "switch"}
)  # fmt: skip
#: Roles a wrapping <label> names.
_LABELLED = EDITABLE | {"checkbox", "radio", "slider", "switch"}
_ATOMIC = frozenset({"link", "button", "tab", "menuitem", "option", "checkbox", "radio"})
_INTERACTIVE = frozenset(
    {"link", "button", "checkbox", "radio", "textbox", "searchbox", "combobox", "spinbutton",
     "slider", "tab", "option", "menuitem", "switch", "listbox"}
)  # fmt: skip


@dataclass
class TreeReader:
    """Reads one state's element tree; counts elements without a usable box.

    record.js keeps no cursor or listener, so what a person can click is known by the
    element kinds (ids, or first classes) the person clicked somewhere in the demonstration.
    """

    targets: frozenset[str] = frozenset()
    unboxed: int = 0

    def elements(self, root: Any) -> tuple[UIElement, ...]:
        out: list[UIElement] = []
        if isinstance(root, Mapping):
            self._visit(root, out, atomic=False, label="", ancestors=None)
        return named_by_neighbours(tuple(out))

    def _visit(
        self, node: Mapping[str, Any], out: list[UIElement], atomic: bool, label: str,
        ancestors: Ancestors | None,
    ) -> None:  # fmt: skip
        tag = str(node.get("tag") or "")
        if tag == "t":
            return  # a piece of its parent's text
        box = self._box(node)
        role = role_of(tag)
        children = [c for c in node.get("children") or () if isinstance(c, Mapping)]
        if box is not None and not (atomic and role not in _INTERACTIVE):
            # A field no <label> names is named by its own group's words, as the live walk
            # names it (``envs.web.dom``).
            named = label or (group_label(ancestors) if role in EDITABLE else "")
            element = _element(node, tag, role, box, children, self.targets, named)
            if element is not None:
                out.append(element)
        if role == "img":
            return
        inner = atomic or (box is not None and role in _ATOMIC)
        # A field inside a <label> is named by the label's words (the accessible name).
        label = _own_text(node) if role == "label" else label
        for child in children:
            self._visit(child, out, inner, label, (node, ancestors))

    def _box(self, node: Mapping[str, Any]) -> BBox | None:
        try:
            left, top = float(node["left"]), float(node["top"])
            width, height = float(node["width"]), float(node["height"])
        except (KeyError, TypeError, ValueError):
            self.unboxed += 1
            return None
        if width < 2 or height < 2 or left >= WIDTH or top >= HEIGHT:
            return None
        if left + width <= 0 or top + height <= 0:
            return None
        return BBox(nx(left), ny(top), nx(left + width), ny(top + height))


#: record.js's tags of the elements a person operates (a form's fields, its buttons, links).
_CONTROL_TAGS = frozenset({"input", "textarea", "select", "button", "a"})


#: A node's ancestors, nearest first: (its parent, the parent's ancestors). Every child of a
#: node shares one, so a walk copies no path.
Ancestors = tuple[Mapping[str, Any], "Ancestors | None"]


def group_label(ancestors: Ancestors | None) -> str:
    """The words of a field's own group: those of the nearest ancestor that has any, where it
    holds no control but the field (a caption under its box in the same entry); words that
    enclose other controls too are a form's, not the field's."""
    while ancestors is not None:
        node, ancestors = ancestors
        words = _words_of_one_control(node)
        if words is None:
            return ""  # every ancestor further up holds these controls too
        if words:
            return words.removesuffix(":").strip()
    return ""


def _words_of_one_control(node: Mapping[str, Any]) -> str | None:
    """The words under ``node`` outside its controls (a field's value is no word), or None as
    soon as it holds a second control: one pass, stopping early."""
    words: list[str] = []
    controls = 0
    pending = [node]
    while pending:
        current = pending.pop()
        tag = str(current.get("tag") or "").lower()
        name = tag.partition("_")[0]
        if name in _CONTROL_TAGS and tag != "input_hidden":
            controls += 1
            if controls > 1:
                return None
            if name != "a":
                continue  # a link's words are words; a field's or a button's are not
        children = [c for c in current.get("children") or () if isinstance(c, Mapping)]
        text = current.get("text")
        if not children and isinstance(text, str):
            words.append(text)
        pending.extend(reversed(children))
    return " ".join(" ".join(words).split())


def role_of(tag: str) -> str:
    """The role the web world's DOM walk gives an element of record.js's ``tag``
    (``INPUT_text``: an input of type text)."""
    name, _, input_type = tag.lower().partition("_")
    if name == "input":
        return _INPUT_ROLES.get(input_type, "textbox")
    return _TAG_ROLES.get(name, "text")


def _text_of(node: Mapping[str, Any]) -> str:
    """All the text under ``node``, as a person reads it."""
    text = node.get("text")
    if isinstance(text, str) and text:
        return text
    parts = [_text_of(c) for c in node.get("children") or () if isinstance(c, Mapping)]
    return " ".join(p for p in parts if p)


def _own_text(node: Mapping[str, Any]) -> str:
    text = node.get("text")
    if isinstance(text, str) and text:
        return text
    pieces = [
        str(c.get("text") or "")
        for c in node.get("children") or ()
        if isinstance(c, Mapping) and c.get("tag") == "t"
    ]
    return " ".join(p for p in pieces if p)


def _key(node: Mapping[str, Any]) -> str:
    """The element's id, else its first class as ``.class`` (``envs.web.dom``'s resource id)."""
    classes = str(node.get("classes") or "").split()
    return str(node.get("id") or "") or (f".{classes[0]}" if classes else "")


def target_keys(node: Any, into: set[str] | None = None) -> set[str]:
    """The keys of the elements record.js marked as an event's target in a tree."""
    into = set() if into is None else into
    if isinstance(node, Mapping):
        if node.get("recordingTarget") and _key(node):
            into.add(_key(node))
        for child in node.get("children") or ():
            target_keys(child, into)
    return into


def _element(
    node: Mapping[str, Any], tag: str, role: str, box: BBox, children: list[Mapping[str, Any]],
    targets: frozenset[str], label: str,
) -> UIElement | None:  # fmt: skip
    classes = str(node.get("classes") or "").split()
    first_class = classes[0] if classes else ""
    key = _key(node)
    input_type = tag.lower().partition("_")[2]
    value = node.get("value")
    if role in _BY_CONTENT:
        name = _text_of(node)
    elif tag.lower().startswith("input_") and input_type in ("submit", "button", "reset"):
        name = str(value or "")
    else:
        name = _own_text(node) if role not in EDITABLE else ""
    if label and role in _LABELLED:
        name = label
    target = bool(node.get("recordingTarget")) or (bool(key) and key in targets)
    if not name and not children and first_class and target:
        name = first_class  # an icon, named by its class as the web world names it
    interactive = role in _INTERACTIVE
    clickable = interactive or role == "label" or target
    if not (interactive or clickable or name or role == "img"):
        return None
    field_value = ""
    if role in EDITABLE and isinstance(value, str):
        field_value = (PASSWORD_SHOWN if value else "") if input_type == "password" else value
    if role in EDITABLE:
        text, desc = field_value, name
    elif role in NAMED_BY_TEXT:
        text, desc = name, ""
    else:
        text, desc = "", name
    return UIElement(
        bbox=box,
        text=text,
        content_desc=desc,
        class_name=role,
        resource_id=key,
        clickable=clickable,
        editable=role in EDITABLE,
        focused=bool(node.get("focused")),
        checked=value is True,
    )


def nx(x: float) -> float:
    """A page x in the task area, normalized to 0..1000."""
    return round(min(NORM_MAX, max(0.0, x * NORM_MAX / WIDTH)), 1)


def ny(y: float) -> float:
    return round(min(NORM_MAX, max(0.0, y * NORM_MAX / HEIGHT)), 1)
