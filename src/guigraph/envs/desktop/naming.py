"""Names for widgets that carry none of their own, as a screen reader finds them.

A text field's accessible name is usually empty: GTK names it through the label beside it
(the label's ``label-for`` relation, the field's ``labelled-by``), and a field inside a
labelled combo box (Mousepad's "Replace with:") is named by its box's label. Where no
relation says it, the label a person reads as a one-line field's is the one just left of it
on the same row, else the one right above it. Without such a name, an empty field is only "the
second empty text field", which another value typed into the first one changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # atspi reads the trees and calls this module
    from guigraph.envs.desktop.atspi import Node

#: AT-SPI's ``ATSPI_RELATION_LABELLED_BY``.
LABELLED_BY = 2
#: Roles named by a label beside them when they have no name of their own.
LABELLED_ROLES = frozenset({
    "text", "entry", "password text", "spin button", "combo box", "slider", "list", "table",
    "tree table", "document text",
})  # fmt: skip
#: Roles whose nameless fields inside take their label (a combo box's entry).
FIELD_GROUPS = frozenset({"combo box", "spin button"})
LABEL_ROLE = "label"
#: How far (pixels) a label may sit from the field it names, to its left or above it.
NEAR_PX = 240


def labelled_by(relations: Sequence[tuple[int, Sequence[tuple[str, str]]]]) -> list[str]:
    """The paths of the widgets a relation set says label this one."""
    return [str(path) for kind, targets in relations if kind == LABELLED_BY for _, path in targets]


def name_fields(
    found: Mapping[str, tuple[Node, list[str]]], labels: Mapping[str, list[str]]
) -> dict[str, tuple[Node, list[str]]]:
    """``found`` (path -> node, children) with every nameless labelled widget named: by its
    labelling relation, else (a field in a field group) by its group's, else by the label
    beside it."""
    named = dict(found)
    for path, (node, children) in found.items():
        if node.name.strip() or node.role not in LABELLED_ROLES:
            continue
        by = " ".join(found[p][0].name.strip() for p in labels.get(path, ()) if p in found)
        if by.strip():
            named[path] = (replace(node, name=by.strip()), children)
    for node, children in list(named.values()):
        if node.role in FIELD_GROUPS and node.name.strip():
            for child in children:
                inner = named.get(child)
                if inner is not None and not inner[0].name.strip():
                    named[child] = (replace(inner[0], name=node.name), inner[1])
    shown_labels = [n for n, _ in named.values() if n.role == LABEL_ROLE and n.name.strip()]
    for path, (node, children) in named.items():
        # A document (many lines) is not named by the banner or toolbar label above it.
        if (
            node.role in LABELLED_ROLES
            and not node.name.strip()
            and "multi_line" not in node.states
        ):
            beside = label_beside(node, shown_labels)
            if beside:
                named[path] = (replace(node, name=beside), children)
    return named


def label_beside(field: Node, labels: Sequence[Node]) -> str:
    """The label a person reads as ``field``'s: the nearest one ending left of it on its row,
    else the nearest one right above it; "" when none is near."""
    fx, fy, fw, fh = field.box
    if fw <= 1 or fh <= 1:
        return ""
    best: tuple[int, str] | None = None
    for label in labels:
        lx, ly, lw, lh = label.box
        same_row = ly < fy + fh and fy < ly + lh
        left_gap = fx - (lx + lw)
        above_gap = fy - (ly + lh)
        if same_row and 0 <= left_gap <= NEAR_PX:
            gap = left_gap
        elif not same_row and 0 <= above_gap <= fh and lx < fx + fw and fx < lx + lw:
            gap = NEAR_PX + above_gap  # a label on the row only loses to one beside it
        else:
            continue
        if best is None or gap < best[0]:
            best = (gap, label.name.strip())
    return best[1] if best else ""
