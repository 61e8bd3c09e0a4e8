"""Runs inside runs: a recorded run that begins with every action of another does what that
other run's instruction says, and then more.

"Find jazz on wikiverse.org and bookmark it" asks for two things. The run recorded as "Save
the wikiverse.org article on jazz to bookmarks" does both: it first does exactly what the run
recorded as "Find the article about coffee on wikiverse.org" did, then taps the bookmark. Its
own instruction never says "find", so on the recorded words alone the finding run explains as
much of the task as the bookmarking run and the sentence encoder breaks the tie. The graph
knows better: the finding run's actions are the bookmarking run's first actions, so the words
of the finding run's instruction are words of the bookmarking run's too.

They count only for a run that also explains a word of the task none of its inner runs says:
"Add the kettle to my cart" is inside every checkout run, and a checkout run explains that
task's words no better than the cart run does; it only does more than was asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from guigraph.compiler.script import trace_script
from guigraph.compiler.slots import clause_parts, content_words

if TYPE_CHECKING:
    from guigraph.compiler.values import ValueIndex
    from guigraph.graph.records import Edge, Node, Trace


@dataclass(frozen=True)
class _Step:
    """One action of a run as a workflow step: the state it was taken in and what it did
    there. A tap that leaves its state is known by the state it leads to (``leads_to``): one
    finding run opened "Coffee, a guide", another "Chess, ten facts", and both went from the
    results to an article. Any other action ("Add to cart", typing the search) is known by
    its signature."""

    node: int
    action: str
    leads_to: int | None = None


@dataclass(frozen=True)
class InnerRuns:
    """What the runs inside one run ask, and the apps of what that run does after them."""

    #: each inner run's instruction words without its values
    asks: tuple[frozenset[str], ...]
    #: apps this run opens after its longest inner run, and not before: the part it adds
    added_apps: frozenset[str]


#: Runs' steps as a prefix tree: each step leads to the steps taken after it.
_Trie = dict[_Step, "_Trie"]


def _steps(trace: Trace, edges: Mapping[int, Edge], nodes: Mapping[int, Node]) -> list[_Step]:
    """The run's workflow steps, as ``trace_script`` keeps them (no pop-up dismissed, no wrong
    tap undone)."""
    script = trace_script(trace, edges, nodes)
    if not script:  # a run that did nothing the graph keeps (a recording stopped at once)
        return []
    after = [s.node for s in script[1:]] + [trace.node_path[-1]]
    steps = []
    for step, there in zip(script, after, strict=True):
        template = step.template
        if template.taps and step.jumps_to is not None:
            action = f"{template.type.value} {template.target_role}"
            steps.append(_Step(step.node, action, there))
        else:
            steps.append(_Step(step.node, template.signature()))
    return steps


def _without_interposed(steps: list[_Step], direct: set[_Step]) -> list[_Step]:
    """``steps`` with each state a pop-up put in the way taken out: a tap in A led to P, one
    tap in P led on to B, and another run's same tap went from A to B at once."""
    out: list[_Step] = []
    i = 0
    while i < len(steps):
        first, second = steps[i], steps[i + 1] if i + 1 < len(steps) else None
        if first.leads_to is not None and second is not None and second.leads_to is not None:
            merged = _Step(first.node, first.action, second.leads_to)
            if second.node == first.leads_to and merged in direct:
                out.append(merged)
                i += 2
                continue
        out.append(first)
        i += 1
    return out


def _asks(trace: Trace, values: ValueIndex) -> frozenset[str]:
    """What the run's instruction asks, its values left out: the names it says and the text
    it typed ("coffee" is what one finding run looked for, not what finding is)."""
    said = content_words(trace.instruction)
    for name in [*values.names_said(trace.instruction), *trace.values.values()]:
        said -= content_words(name)
    return frozenset(said)


def learn_inner_runs(
    traces: Iterable[Trace], edges: Mapping[int, Edge], nodes: Mapping[int, Node],
    values: ValueIndex,
) -> dict[str, InnerRuns]:  # fmt: skip
    """Episode id -> the runs it contains: runs whose steps are a proper prefix of its steps.

    A trie of every run's steps is walked once per run: the runs ending at a trie node
    passed before the run's own end are the runs inside it."""
    traces = list(traces)
    raw = {trace.episode_id: _steps(trace, edges, nodes) for trace in traces}
    direct = {step for steps in raw.values() for step in steps if step.leads_to is not None}
    paths = {key: _without_interposed(steps, direct) for key, steps in raw.items()}

    def app_of(node_id: int) -> str | None:
        node = nodes.get(node_id)
        return node.app if node is not None else None

    # The app of each step, and of the state the run ended in (its last step's result).
    apps = {
        trace.episode_id: [
            *(app_of(s.node) for s in paths[trace.episode_id]),
            app_of(trace.node_path[-1]),
        ]
        for trace in traces
    }
    trie: _Trie = {}
    ends: dict[int, set[frozenset[str]]] = {}  # id(trie node) -> what runs ending there ask
    for trace in traces:
        node = trie
        for step in paths[trace.episode_id]:
            node = node.setdefault(step, {})
        ends.setdefault(id(node), set()).add(_asks(trace, values))
    found: dict[str, InnerRuns] = {}
    for trace in traces:
        asks: set[frozenset[str]] = set()
        longest = 0
        node = trie
        path = paths[trace.episode_id]
        for length, step in enumerate(path[:-1], start=1):
            node = node[step]
            if ends.get(id(node)):
                asks |= ends[id(node)]
                longest = length
        asks.discard(frozenset())
        if asks:
            before = set(apps[trace.episode_id][:longest])
            added = frozenset(a for a in apps[trace.episode_id][longest:] if a and a not in before)
            found[trace.episode_id] = InnerRuns(tuple(sorted(asks, key=sorted)), added)
    return found


def inner_words(
    instruction: str, shared: set[str], values: set[str], inner: InnerRuns | None,
    app_words: set[str],
) -> set[str]:  # fmt: skip
    """The words of ``instruction`` a run explains through the runs inside it, for a run
    that explains the words ``shared`` and bound the task's ``values``.

    Only for a task in parts, of which one asks what an inner run did (most of its words
    that are no value are that run's), and only if the run explains some word no inner run
    says that is no value and names no app (``app_words``): the part it adds.

    - "Share the newest photo in the Gallery" says "photo", and the run that takes a photo
      and then shares it gains nothing: no part of that task asks to take one.
    - "Look up the Nova watch on Acme and add it to my cart" names Acme, where the
      checkout run and the cart run inside it both work: the checkout adds nothing asked.
    """
    if inner is None:
        return set()
    wanted = content_words(instruction)
    if not (shared & wanted) - values - frozenset().union(*inner.asks) - app_words:
        return set()
    parts = clause_parts(instruction)
    if len(parts) < 2:
        return set()
    found: set[str] = set()
    for part in parts:
        asked = content_words(part) - values
        for asks in inner.asks:
            if asked and 2 * len(asked & asks) >= len(asked):
                found |= asked & asks
    return found
