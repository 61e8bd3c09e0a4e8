"""Words a recorded run's controls show: what a trace did, as its screens name it.

A recorded instruction says what its run did in the words of whoever recorded it; the screens
the run acted on name the same thing in the app's words. "Put the Nova sneakers on my
wishlist" shares no word with any recorded instruction ("Save the ... for later", "Add the ...
to my saved items"), yet the run that saved an item tapped a control whose id is
``add_to_wishlist``. So a word of the task is explained by a trace whose controls show it, on
two conditions that keep this from outbidding what recorded instructions say:

- no recorded instruction says the word: a word the KB's own language uses ("photo", "save")
  is already evidence through those instructions, and a control showing it again ("Take
  photo" in Camera) would count it twice, for whatever trace taps more controls;
- the controls showing it are in one app only: "Save" is tapped in Notes, Clock and Calendar
  alike, and says nothing about which of them a task wants.

Values are no controls: a tapped contact or product is the run's value, not what it did.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from guigraph.compiler.script import is_home
from guigraph.compiler.slots import content_words
from guigraph.compiler.values import ValueIndex, label_in_instruction
from guigraph.envs import conventions
from guigraph.language import tables

if TYPE_CHECKING:
    from guigraph.compiler.script import ScriptStep
    from guigraph.graph.records import ActionTemplate, Edge, Node, Trace
    from guigraph.language.tables import Language

_NOT_A_LETTER = re.compile(r"[^A-Za-z]+")


def shown_words(template: ActionTemplate) -> frozenset[str]:
    """The content words of a control an action touched: its label and its id's field name
    (``shop:id/add_to_wishlist`` -> add, wishlist), as the world's id scheme reads ids."""
    name = conventions.active().parse_id(template.target_id).name
    return _shown_words(template.target_label, name, tables.default())


@functools.lru_cache(maxsize=16384)
def _shown_words(label: str, id_name: str, language: Language) -> frozenset[str]:
    """Remembered per control and task language: every binding of every run a task
    retrieves reads its controls again (146k times on the golden corpus)."""
    return frozenset(content_words(label) | content_words(_NOT_A_LETTER.sub(" ", id_name)))


def learn_control_words(
    traces: Iterable[Trace], edges: Mapping[int, Edge], nodes: Mapping[int, Node]
) -> dict[str, str]:
    """Word -> the one app whose recorded controls show it, for words no recorded instruction
    says (the module's two conditions). Each edge is read once, each trace's tail too."""
    traces = list(traces)
    said: set[str] = set()
    for trace in traces:
        said |= content_words(trace.instruction)
    apps: dict[str, set[str]] = {}

    def note(node_id: int, template: ActionTemplate) -> None:
        node = nodes.get(node_id)
        if node is None or not node.app or is_home(node.app):
            return  # the launcher's labels name apps, which ``aliases`` already knows
        if conventions.active().is_dismissal(template.target_label):
            return  # a pop-up's button belongs to no workflow
        for word in shown_words(template) - said:
            if not any(c.isdigit() for c in word):  # "IMG_3050", "5-day": shapes of values
                apps.setdefault(word, set()).add(node.app)

    for edge in edges.values():
        for template in edge.actions:
            note(edge.source, template)
    for trace in traces:
        for template in trace.tail:
            note(trace.node_path[-1], template)
    return {word: next(iter(owners)) for word, owners in apps.items() if len(owners) == 1}


def shown_control_words(
    steps: Sequence[ScriptStep],
    values: ValueIndex,
    recorded_instruction: str,
    learned: Mapping[str, str],
) -> set[str]:
    """The ``learned`` words (:func:`learn_control_words`) that the controls ``steps`` act on
    show, values left out: a tap bound to the task's value, or on a label the recorded run
    named as its value ("Chen", "Pique kettle")."""
    if not learned:
        return set()
    found: set[str] = set()
    for step in steps:
        template = step.template
        label = template.target_label
        if step.home or step.open_value or step.label != label:
            continue
        if label and (
            label_in_instruction(label, recorded_instruction)
            or values.is_value_label(step.node, label, recorded_instruction)
        ):
            continue
        found |= {w for w in shown_words(template) if learned.get(w) == step.app}
    return found
