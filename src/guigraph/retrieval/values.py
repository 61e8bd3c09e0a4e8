"""The values a knowledge base has seen at each place of a workflow.

A *site* is a graph state and an action kind (typing in the weather search box, tapping in the
contact list). The values recorded there (cities typed, contacts tapped) let slot filling
recognise a new task's value when the phrasing is too different to align word by word.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from guigraph.graph.records import Edge, Trace

Site = tuple[int, str]


def label_in_instruction(label: str, instruction: str) -> bool:
    """A tapped label that the instruction names is a value of the task (a song, a contact)."""
    text = label.strip().lower()
    return len(text) >= 2 and text in instruction.lower()


class ValueIndex:
    def __init__(self) -> None:
        self.by_site: dict[Site, set[str]] = defaultdict(set)

    @classmethod
    def build(cls, traces: Iterable[Trace], edges: dict[int, Edge]) -> ValueIndex:
        index = cls()
        for trace in traces:
            index.add_trace(trace, edges)
        return index

    def add_trace(self, trace: Trace, edges: dict[int, Edge]) -> None:
        steps = [
            (trace.node_path[k], str(edge_id), template)
            for k, edge_id in enumerate(trace.edge_path)
            for template in edges[edge_id].actions
        ]
        steps += [(trace.node_path[-1], "tail", template) for template in trace.tail]
        for node, key, template in steps:
            if template.type == "type" and template.text and template.text.startswith("{"):
                value = trace.values.get(f"{key}:{template.text.strip('{}')}")
                if value and template.text_source == "instruction":
                    self.by_site[(node, "type")].add(value)
            elif template.type in ("click", "long_press") and label_in_instruction(
                template.target_label, trace.instruction
            ):
                self.by_site[(node, "click")].add(template.target_label)

    def known(self, site: Site) -> set[str]:
        return self.by_site.get(site, set())
