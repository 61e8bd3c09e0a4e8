"""Scripts: the action steps a plan asks for, each tied to the graph state it is taken in.

A recorded trace becomes a script by unrolling its edges (every in-page action of a state, then
the action that left it) and its tail (the actions in the last state before COMPLETE). Binding
a script to a new task fills its values: typed text from the instruction, tapped labels that
the instruction named (a song, a contact), and values to be read off a screen while acting.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

from guigraph.compiler import counts, fillers, lists
from guigraph.compiler.forms import as_said, conform
from guigraph.compiler.slots import (
    SlotRequest,
    align_value,
    clauses,
    content_words,
    is_name,
    is_sentence,
    names_in_sentences,
    set_off_texts,
)
from guigraph.compiler.values import Site, ValueIndex, named_part, type_site
from guigraph.envs import conventions
from guigraph.graph.records import SlotKey, TextSource
from guigraph.graph.slot_types import SlotType, learn
from guigraph.language import tables
from guigraph.language.casing import in_field_case
from guigraph.language.parse import parse
from guigraph.types import ActionType

if TYPE_CHECKING:
    from guigraph.graph.records import ActionTemplate, Edge, Node, Trace


def is_home(app: str | None) -> bool:
    """Launchers report themselves under several names (the world's conventions say which);
    none of them is an app of a task."""
    return conventions.active().is_home(app)


def is_dismissal(label: str) -> bool:
    """A button that closes a pop-up: a recorded dismissal is an accident of that run, not a
    step of the workflow (the pop-up may not come again, and a rule dismisses it when it does).
    The world's conventions leave "Cancel" out: task dialogs (a picker, a share sheet) have
    one too."""
    return conventions.active().is_dismissal(label)


_END_TYPES = frozenset({ActionType.COMPLETE, ActionType.IMPOSSIBLE})


@dataclass(frozen=True)
class ScriptStep:
    node: int  # the graph state the action is taken in
    template: ActionTemplate
    jumps_to: int | None  # the state it leads to, when it is the action that leaves the state
    app: str | None
    trace_id: str
    #: Where this step's slots live in ``trace.values``: its edge, or the trace's tail
    #: (``edge_id`` None and ``in_tail``); neither for a step of a route.
    edge_id: int | None = None
    in_tail: bool = False
    segment: int = 0
    text: str | None = None  # the text to type, bound; "{slot}" marks a value read off a screen
    screen_slots: tuple[tuple[str, TextSource], ...] = ()  # slots whose value a screen shows
    #: Where else to read them (a value carried from an earlier app).
    fallback_source: TextSource | None = None
    bound_values: dict[str, str] = field(default_factory=dict)  # slot -> the task's value
    label: str = ""  # the label to tap, once bound (the task's value for a value label)
    #: (recorded value, new value) of the task: a result titled "Chess, a guide" was chosen
    #: for the recorded "chess"; for "marathons" the team looks for a result with that word.
    replacements: tuple[tuple[str, str], ...] = ()
    task_words: frozenset[str] = frozenset()  # the new instruction's content words
    #: A tap on a task value the binding could not find ("to Emeka" where the recording
    #: tapped "Bruno"): the recorded label would be the wrong contact, so the element is
    #: looked for on the screen among those the task names.
    open_value: bool = False
    #: A tap on whatever element is of the kind the task names ("Click on a "checkbox"
    #: widget"): the recorded element's label is another run's; its kind is the value.
    kind: str = ""

    @functools.cached_property
    def home(self) -> bool:
        """Whether the step is on a home screen (the world's in force when the step was made;
        a step is made in its world and asked this for every plan it is part of)."""
        return conventions.active().is_home(self.app)

    def slot_key(self, slot: str) -> SlotKey | None:
        """The key of this step's ``slot`` in its trace's values (None on a route)."""
        if self.edge_id is None and not self.in_tail:
            return None
        return SlotKey(self.edge_id, slot)


@dataclass
class Binding:
    """A script bound to a new task, with what it explains of the instruction."""

    steps: list[ScriptStep]
    claimed: set[str] = field(default_factory=set)  # words of the new instruction it explains
    unfilled: int = 0  # instruction values it needs but could not find
    exports: list[TextSource] = field(default_factory=list)  # screens it reads values from
    #: The recorded steps it was bound from (stitching cuts those, not the bound ones).
    recorded: Sequence[ScriptStep] = ()
    #: The instruction it was bound to.
    instruction: str = ""


def trace_script(
    trace: Trace, edges: Mapping[int, Edge], nodes: Mapping[int, Node]
) -> list[ScriptStep]:
    steps: list[ScriptStep] = []
    for k, edge_id in enumerate(trace.edge_path):
        edge = edges[edge_id]
        here, there = trace.node_path[k], trace.node_path[k + 1]
        for i, template in enumerate(edge.actions):
            jumps_to = there if i == len(edge.actions) - 1 else None
            steps.append(_step(here, template, jumps_to, nodes, trace, edge_id))
    last = trace.node_path[-1]
    steps += [
        _step(last, t, None, nodes, trace, None) for t in trace.tail if t.type not in _END_TYPES
    ]
    return without_detours(steps, nodes)


def without_detours(steps: list[ScriptStep], nodes: Mapping[int, Node]) -> list[ScriptStep]:
    """Drop what the recording did by accident: pop-up dismissals, and a tap into a state that
    was left at once with back (a wrong tap) unless that state showed a value used later."""
    kept = [s for s in steps if not is_dismissal(s.template.target_label)]
    if steps and not kept:
        kept = list(steps)  # a run that only closed a dialog: closing it was the task
    read_later = {
        source.key for s in kept for _, source in s.template.text_sources if source.from_screen
    }
    out: list[ScriptStep] = []
    i = 0
    while i < len(kept):
        step, after = kept[i], kept[i + 1] if i + 1 < len(kept) else None
        detour = (
            after is not None
            and step.jumps_to is not None
            and after.template.type is ActionType.PRESS_BACK
            and after.node == step.jumps_to
            and after.jumps_to == step.node
            and not _shows_any(nodes.get(step.jumps_to), read_later)
        )
        if detour:
            i += 2
            continue
        out.append(step)
        i += 1
    return out


def _shows_any(node: Node | None, resource_ids: set[str]) -> bool:
    if node is None:
        return False
    return any(key in resource_ids for key in node.element_keys)


@functools.lru_cache(maxsize=4096)
def _site_type(known: frozenset[str], recorded: str) -> SlotType | None:
    """The type of a slot whose site knows ``known`` and whose run recorded ``recorded``
    (learned once per site and value: a site's values are the same for every task)."""
    return learn([*known, recorded])


def _step(
    node: int, template: ActionTemplate, jumps_to: int | None, nodes: Mapping[int, Node],
    trace: Trace, edge_id: int | None,
) -> ScriptStep:  # fmt: skip
    """A step of ``trace`` in ``node``: of edge ``edge_id``, or of the tail when None."""
    app = nodes[node].app if node in nodes else None
    return ScriptStep(
        node, template, jumps_to, app, trace.episode_id, edge_id, in_tail=edge_id is None,
        label=template.target_label,
    )  # fmt: skip


#: Slot fills already worked out for one instruction: (recorded value, donor instruction,
#: site, title field?) -> the new values it may take. A trace is bound whole (to follow it)
#: and in segments (to stitch them); the fills are the same.
FillCache = dict[tuple[str, str, Site, bool], "Candidates"]


@dataclass(frozen=True, slots=True)
class Candidates:
    """A slot's values of its type, best first, each with its way's rank. Binding works out
    the first only; the others are worked out (``every``) only for a slot that loses its first
    to another slot, which few do."""

    first: tuple[str, int] | None
    request: SlotRequest | None = None
    kind: SlotType | None = None

    @classmethod
    def of(cls, request: SlotRequest, kind: SlotType | None) -> Candidates:
        return cls(next(_of_type(fillers.candidates(request), kind), None), request, kind)

    def every(self) -> list[tuple[str, int]]:
        if self.request is None:
            return [self.first] if self.first else []
        return list(_of_type(fillers.candidates(self.request), self.kind))


def _of_type(found: Iterator[tuple[str, int]], kind: SlotType | None) -> Iterator[tuple[str, int]]:
    return (c for c in found if kind is None or kind.accepts(c[0]))


@dataclass(frozen=True)
class KindClues:
    """What tells a value of another kind: it names another app (``aliases``, name -> app: the
    "Zenith video City Tour" as an Acme product), or another app's field (``read_fields``,
    word -> apps whose screens show a field of that name), so it describes the value to read
    there ("the temperature in Hanoi" is no post text)."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    read_fields: Mapping[str, frozenset[str]] = field(default_factory=dict)


def bind(
    steps: Sequence[ScriptStep], trace: Trace, instruction: str, values: ValueIndex,
    cache: FillCache | None = None, kinds: KindClues | None = None,
) -> Binding:  # fmt: skip
    """Fill the script's values for ``instruction``; unfilled ones keep the trace's own.
    ``kinds`` tells a value of another kind (``KindClues``).

    A text the task sets off in quotes, or by its one separating mark, is a value: where no
    slot took it and one free-text slot is left open ("Post 'Trying a new recipe' on Acme"
    / "Share an Acme post saying Lovely morning run"), the script is bound again with that
    slot taking it (``set_off_texts``). So for a name no slot took, where one name slot is
    left open ("At 10:00 pm I need an alarm, name it Laundry" / "Wake me at 15:00 with an
    alarm named Bus": no word of the recorded wording is beside the new name)."""
    fills = {} if cache is None else cache
    args = (steps, trace, instruction, values, fills, kinds or KindClues())
    with tables.using(tables.of(instruction)):
        binding = _Binder(*args).bind()
    # A recorded step repeated per item of a list the task names ("Select A, B and C"), or as
    # many times as a number it says ("Select 7 with the spinner").
    binding = lists.repeat_per_item(binding, trace.instruction, instruction)
    return counts.repeat_per_count(binding, trace.instruction, instruction)


@dataclass(frozen=True, slots=True)
class _Slot:
    """A place of the script a value of the task goes: the recorded value there."""

    recorded: str
    site: Site
    titled: bool  # a title field (a quoted phrase of the task is its value)


@dataclass(frozen=True, slots=True)
class _Leftover:
    """A value of the task that no slot took, for the one open slot of its sort to take."""

    slot: _Slot
    value: str
    #: A name, for a slot whose recorded value is a name; else free text set off by quotes or
    #: a mark, for a free-text slot.
    name: bool


#: How strongly a slot is proposed a value: the filler's own answer for it, or a name the same
#: field took where the task was bound to another recorded run (``_Binder._fill_once``).
_OWN, _SPREAD = 2, 1
#: A proposal's score: its weight times this, less its way's rank (a later way, a lower score).
_WEIGHT_SCALE = 8
#: Assignments tried per contest at most (past it, each slot takes its best free value in turn).
_MOST_TRIED = 4096


@dataclass(frozen=True, slots=True)
class _Proposal:
    """A value proposed for a slot, how strongly (``_OWN``, ``_SPREAD``), and the rank of the
    way that found it."""

    value: str
    weight: int
    order: int  # the slot's place among the script's: an even contest goes to the earlier
    rank: int = 0

    @property
    def score(self) -> float:
        return self.weight * _WEIGHT_SCALE - self.rank - self.order * 1e-6


@dataclass(frozen=True, slots=True)
class _Proposed:
    """The values proposed for one slot on the binder's first walk: its best, and the others
    its candidates hold."""

    best: _Proposal
    candidates: Candidates

    def every(self) -> list[_Proposal]:
        return [replace(self.best, value=v, rank=r) for v, r in self.candidates.every()]


def assign(proposed: Mapping[_Slot, _Proposed]) -> dict[_Slot, str]:
    """The value each slot keeps: one assignment of the task's values to the slots, each slot
    one of the values proposed for it or none, with the most score in all. Where recorded runs
    used two values the task has two values too: one value goes to one family of slots, those
    whose recorded values are the same or part of one another (a search typed with part of the
    title it taps), so the note "Call Alice" a task opens is no recipient "Hiro"; a slot that
    loses its best value takes its next one."""
    best = {slot: p.best for slot, p in proposed.items()}
    if _uncontested(best):
        # Each slot's best scores the most it can: the assignment (most slots' other values
        # are never worked out).
        return {slot: p.value for slot, p in best.items()}
    proposals = {slot: p.every() for slot, p in proposed.items()}
    kept: dict[_Slot, str] = {}
    for contest in _contests(proposals):
        kept.update(_best_assignment(contest, proposals))
    return kept


def _uncontested(best: Mapping[_Slot, _Proposal]) -> bool:
    """Whether no value is proposed first to two unrelated slots."""
    by_value: dict[str, list[_Slot]] = {}
    for slot, proposal in best.items():
        by_value.setdefault(proposal.value.lower(), []).append(slot)
    return all(
        _related(a.recorded, b.recorded)
        for slots in by_value.values() for a, b in itertools.combinations(slots, 2)
    )  # fmt: skip


def _contests(proposals: Mapping[_Slot, Sequence[_Proposal]]) -> list[list[_Slot]]:
    """The slots in groups linked by the values proposed for them (a value, its slots)."""
    groups: list[tuple[set[str], list[_Slot]]] = []
    for slot, proposed in proposals.items():
        values = {p.value.lower() for p in proposed}
        joined = [g for g in groups if g[0] & values]
        merged = (values.union(*(g[0] for g in joined)), [s for g in joined for s in g[1]] + [slot])
        groups = [g for g in groups if g not in joined] + [merged]
    return [slots for _, slots in groups]


def _best_assignment(
    slots: Sequence[_Slot], proposals: Mapping[_Slot, Sequence[_Proposal]]
) -> dict[_Slot, str]:
    """The values of ``slots`` with the most score, no two unrelated slots taking one value."""
    chosen: dict[_Slot, _Proposal] = {}
    best: list[tuple[float, dict[_Slot, _Proposal]]] = [(float("-inf"), {})]
    tries = 1
    for slot in slots:
        tries *= len(proposals[slot]) + 1

    def free(slot: _Slot, value: str) -> bool:
        return all(
            _related(slot.recorded, other.recorded)
            for other, p in chosen.items() if p.value.lower() == value.lower()
        )  # fmt: skip

    def walk(i: int, total: float) -> None:
        if i == len(slots):
            if total > best[0][0]:
                best[0] = (total, dict(chosen))
            return
        for proposal in proposals[slots[i]]:
            if free(slots[i], proposal.value):
                chosen[slots[i]] = proposal
                walk(i + 1, total + proposal.score)
                del chosen[slots[i]]
        walk(i + 1, total)

    if tries > _MOST_TRIED:  # too many to try each: the strongest slot chooses first
        for slot in sorted(slots, key=lambda s: -proposals[s][0].score):
            free_value = next((p for p in proposals[slot] if free(slot, p.value)), None)
            if free_value is not None:
                chosen[slot] = free_value
        return {slot: p.value for slot, p in chosen.items()}
    walk(0, 0.0)
    return {slot: p.value for slot, p in best[0][1].items()}


def _related(a: str, b: str) -> bool:
    return a.lower() == b.lower() or _part_of(a, b) or _part_of(b, a)


@dataclass(frozen=True, slots=True, eq=False)
class _KindCheck:
    """Whether a value is of another kind than the values at one site, each one refused noted
    in ``refused`` (a slot's request keeps this, not the whole binder). Equal only to itself,
    so a ``SlotRequest`` stays hashable (a filler may remember its answers by request)."""

    values: ValueIndex
    instruction: str
    kinds: KindClues
    app_names: frozenset[str]
    refused: dict[Site, set[str]]
    site: Site
    app: str | None

    def __call__(self, value: str) -> bool:
        values, instruction, site = self.values, self.instruction, self.site
        # The app's own name, as written ("Zenith"; a "Nova camera bag" names no app).
        named = {w for w in value.split() if w in self.app_names} - {self.app}
        wrong = (
            bool(named)
            # A tapped value the task says only inside a longer name is not asked for.
            or (site[1] == "click" and values.said_only_inside_names(value, instruction))
            or values.foreign(value, site)
            or _asks(value, instruction)
            or describes_field(value, self.app, self.kinds.read_fields)
        )
        if wrong:
            self.refused.setdefault(site, set()).add(value)
        return wrong


@dataclass
class _Binder:
    """One pass of ``bind``: the binding built step by step, and what its steps share."""

    steps: Sequence[ScriptStep]
    trace: Trace
    instruction: str
    values: ValueIndex
    fills: FillCache
    kinds: KindClues

    def __post_init__(self) -> None:
        self.app_names = frozenset(self.kinds.aliases.values())
        # Values of the task refused as of another kind, per site: a name inside one is of that
        # kind too ("City Tour" of "the Zenith video City Tour" is no Acme product).
        self.refused: dict[Site, set[str]] = {}
        # The values each slot is proposed (a first walk), then the ones assigned (``assign``).
        self.proposals: dict[_Slot, _Proposed] = {}
        self.assigned: dict[_Slot, str] | None = None
        self._start_walk()
        self.value_taps = self._value_taps()
        # A search typed with a part of a tapped value ("Bike" for the video "Bike Repair for
        # beginners") is for the new task's whole value.
        taps = [self.steps[i] for i in sorted(self.value_taps)]
        self.tapped = [(s.template.target_label, (s.node, "click"), s.app) for s in taps]
        self.new_words = content_words(self.instruction)
        self.lowered = self.values.casing.restored(self.instruction)

    def _start_walk(self) -> None:
        self.binding = Binding([], recorded=self.steps, instruction=self.instruction)
        # The typed slots left open (with their apps): free text, and names or titles.
        self.open_texts: list[tuple[_Slot, str | None]] = []
        self.open_names: list[tuple[_Slot, str | None]] = []
        self.pairs: list[tuple[str, str]] = []  # (recorded, new) of the tapped values placed
        self.left_open: set[tuple[str, ...]] = set()  # the recorded values left open

    def bind(self) -> Binding:
        """The script bound to the task.

        The first walk asks each slot for its value (``proposals``); the values contested by
        unrelated slots are assigned (``assign``), so no slot takes a value only for coming
        first; the second walk binds with the assignment. A value of the task no slot took then
        goes to the one slot of its sort left open (``_Leftover``), bound by a third walk."""
        self._walk()
        self.assigned = assigned = assign(self.proposals)
        if any(assigned.get(slot) != p.best.value for slot, p in self.proposals.items()):
            # A slot lost its value to another: walk again. Most bindings have no contest, and
            # the first walk bound them as assigned.
            self._start_walk()
            self._walk()
        leftover = self._leftover_text() or self._leftover_name()
        if leftover is not None:
            assigned[leftover.slot] = leftover.value
            self._start_walk()
            self._walk()
            if leftover.name:
                # A name no word of the recorded wording points to fills the open slot but
                # weighs nothing in ranking: it explains no word of the task and the slot still
                # counts as open, so which run to follow is for the other evidence to decide
                # ("I want to watch Cat Compilation ..." is no note titled so; "... add it to
                # my cart" no alarm "Lumen").
                self.binding.claimed -= content_words(leftover.value)
                self.binding.unfilled += 1
        self._set_replacements()
        return self.binding

    def _walk(self) -> None:
        field = ""  # the label tapped last: the field the next typing types in
        for i, step in enumerate(self.steps):
            template = step.template
            if template.type is ActionType.TYPE:
                step = self._bind_typed(step, field)
            elif template.taps:
                field = template.target_label
            if i in self.value_taps:
                step = self._bind_tapped_value(step)
            elif template.taps:
                kind = kind_said(template, self.trace.instruction, self.instruction)
                if kind:
                    self.binding.claimed |= content_words(kind) & self.new_words
                    step = replace(step, kind=kind)
            self.binding.steps.append(step)
        _fill_words_of_values(self.binding, self.trace)

    def _value_taps(self) -> set[int]:
        """The steps tapping a value (a launcher's icon opens an app: never the task's value)."""
        old = self.trace.instruction
        return {
            i for i, step in enumerate(self.steps)
            if step.template.taps and not step.home and (
                self.values.is_value_label(step.node, step.template.target_label, old)
                or requoted(step.template.target_label, old, self.instruction)
            )
        }  # fmt: skip

    def _fill(self, recorded: str, site: Site, app: str | None, titled: bool = False) -> str | None:
        """The task's value for the slot of ``recorded`` at ``site``: proposed on the first walk,
        as assigned on the second."""
        slot = _Slot(recorded, site, titled)
        if self.assigned is not None:
            return self.assigned.get(slot)
        if slot not in self.proposals:
            found = self._fill_once(recorded, site, app, titled)
            first = found[0].first if found else None
            if found is None or first is None:
                return None
            best = _Proposal(first[0], found[1], len(self.proposals), first[1])
            self.proposals[slot] = _Proposed(best, found[0])
        return self.proposals[slot].best.value

    @property
    def placed(self) -> set[str]:
        """The values proposed for a slot, in lower case."""
        return {p.best.value.lower() for p in self.proposals.values()}

    @property
    def placed_as_said(self) -> set[str]:
        """The values proposed for a slot, as the task writes them."""
        return {p.best.value for p in self.proposals.values()}

    def _wrong_kind(self, value: str, site: Site, app: str | None) -> bool:
        """Whether ``value`` is of another kind than the values at ``site`` (refused if so)."""
        return self._kind_check(site, app)(value)

    def _kind_check(self, site: Site, app: str | None) -> _KindCheck:
        return _KindCheck(
            self.values, self.instruction, self.kinds, self.app_names, self.refused, site, app
        )

    def _fill_once(
        self, recorded: str, site: Site, app: str | None, titled: bool
    ) -> tuple[Candidates, int] | None:
        """The filler's values for ``recorded`` at ``site``, worked out once (``fills``), and
        their weight: the filler's own answers of the slot's type (learned from the values
        recorded there), or a name the field took for another run."""
        trace, instruction, fills = self.trace, self.instruction, self.fills
        key = (recorded, trace.instruction, site, titled)
        if key not in fills:
            # A sentence the recorded task gave to type is found, and typed, in the words the
            # new task says it in ("Rehearsals start at six.", not "... at 6.").
            said = as_said(instruction) if is_sentence(recorded, trace.instruction) else None
            known = self.values.known(site)
            request = SlotRequest(
                recorded, trace.instruction, said or instruction, known, titled=titled,
                foreign=self._kind_check(site, app),
            )  # fmt: skip
            fills[key] = Candidates.of(request, _site_type(known, recorded))
        if fills[key].first is None:
            # One field of one task takes one name: "Message Jonas the contents of ..." aligns
            # with "Message Farah: ..." and not with "... text what it says to Hiro", whose
            # recipient is the same field. Names only: a loose alignment elsewhere ("weather"
            # as a product) is no value to spread.
            found = {c.first[0] for (_, _, at, _), c in fills.items() if at == site and c.first}
            if len(found) == 1 and is_name(next(iter(found))):
                return Candidates((found.pop(), 0)), _SPREAD
            return None
        return fills[key], _OWN

    def _bind_typed(self, step: ScriptStep, field: str) -> ScriptStep:
        """A typing step in ``field`` (the label tapped last), filled: each instruction value in
        the field's form, markers for values to read off a screen; words claimed: the task's own."""
        site, binding = type_site(step.node, field), self.binding
        titled = "title" in field.lower()
        beside_read = any(source.from_screen for _, source in step.template.text_sources)
        text = step.template.text or ""
        screen: list[tuple[str, TextSource]] = []
        bound: dict[str, str] = {}
        dropped = False
        for slot, source in step.template.text_sources:
            marker = "{" + slot + "}"
            key = step.slot_key(slot)
            recorded = self.trace.values.get(key, "") if key is not None else ""
            if source.from_screen:
                binding.exports.append(source)
                screen.append((slot, source))
                continue
            new = self._fill_typed(recorded, site, step.app, titled, beside_read)
            if new is None:
                self._leave_open(recorded)
                # Beside a value read off a screen, the donor's own part ("Lima" of "Lima 33°C")
                # is no part of this task's text: the value read is typed alone.
                dropped = beside_read
                new = "" if dropped else recorded
            else:
                new = _without_kept_punctuation(new, text, marker)
                binding.claimed |= content_words(new) & self.new_words
                new = _in_field_form(new, self.values, site, self.lowered)
                bound[slot] = new
            text = text.replace(marker, new)
        if dropped:  # no gap left where the donor's part was ("{text3}", not " {text3}")
            text = re.sub(r" {2,}", " ", text).strip(" ")
        return _restep(step, text=text, screen_slots=tuple(screen), bound_values=bound)

    def _fill_typed(
        self, recorded: str, site: Site, app: str | None, titled: bool, beside_read: bool
    ) -> str | None:
        """The new value of a typed slot; where none is found, the new whole of a tapped value
        the recorded one was part of. A slot left open is noted for a leftover of its sort."""
        new = self._fill(recorded, site, app, titled)
        slot = _Slot(recorded, site, titled)
        # Beside a value read off a screen the donor's part is dropped, not replaced.
        if new is None and not beside_read and _name_or_title(recorded):
            self.open_names.append((slot, app))
        # Free text is words of a sentence ("Lovely morning run"): a name, one word (the topic
        # "volcanoes", the minutes "15") is a value a text set off is not.
        if new is None and not is_name(recorded) and len(recorded.split()) >= 2:
            self.open_texts.append((slot, app))
        tapped = self.tapped
        whole = next((t for t in tapped if _part_of(recorded, t[0])), None) if new is None else None
        if whole is None:
            return new
        # Only a value of the same case: a name's part stands for a name. A task written all
        # in lower case (speech to text: ``lowered``) tells no name by its case.
        found = self._fill(*whole)
        same_case = found is not None and found[:1].isupper() == recorded[:1].isupper()
        return found if found and (same_case or self.lowered) else None

    def _bind_tapped_value(self, step: ScriptStep) -> ScriptStep:
        label = step.template.target_label
        # A value the screen writes within marks (the page "hiking" as the link ":hiking") is
        # filled as the task says it and written back within the same marks (":chess").
        before, value, after = named_part(label, self.trace.instruction)
        if not (before or after):
            value = label
        new = self._fill(value, (step.node, "click"), step.app)
        if new is None:
            self._leave_tap_open(value, marked=bool(before or after))
            return _restep(step, open_value=True)
        self.binding.claimed |= content_words(new) & self.new_words
        new = before + new + after
        self.pairs.append((label, new))
        return _restep(step, label=new)

    def _leave_open(self, recorded: str) -> None:
        """A typed value of the task left unfilled (noted for a tap that shows it again)."""
        self.binding.unfilled += 1
        # Its words, case and marks aside: the link ":Theatre" shows the "theatre" typed.
        self.left_open.add(parse(recorded).lowered)

    def _leave_tap_open(self, value: str, marked: bool) -> None:
        """A tapped value of the task left unfilled, counted once with the typing before it
        where the screen writes what was typed within marks (the name typed, then its link
        ":name" tapped: one value the binding lacks). An unmarked result tapped after a search
        still counts again: the run picked it among what it found, a second use of a value the
        task never gave (a product searched and chosen in a task that names none)."""
        if not (marked and parse(value).lowered in self.left_open):
            self.binding.unfilled += 1

    def _leftover_text(self) -> _Leftover | None:
        """The one text the task sets off, for the one free-text slot left open, of the same
        case (a sentence, "Running late", is no search topic, "coffee")."""
        one_open = self.binding.unfilled == len(self.open_texts) == 1
        set_off = set_off_texts(self.instruction) if one_open else []  # most bindings skip it
        if len(set_off) != 1:
            return None
        # In a task of several parts, which part a set-off text belongs to is for the stitcher
        # to weigh: "Put 'Trip to Tokyo' in my calendar ... and message Hiro the temperature". A
        # part that is the set-off text alone ("... this text: 'Call me back'") is no part.
        text, (slot, app) = set_off[0], self.open_texts[0]
        own = content_words(text)
        parts = [part for part in clauses(self.instruction) if content_words(part) - own]
        if len(parts) >= 2 or text.lower() in self.placed:
            return None
        same_case = text[:1].isupper() == slot.recorded[:1].isupper()
        if not same_case or self._wrong_kind(text, slot.site, app):
            return None
        return _Leftover(slot, text, name=False)

    def _leftover_name(self) -> _Leftover | None:
        """The one name the instruction says that no slot took, where one name slot is the only
        one left open: not an app's name, no word of a value placed, not a value of another
        kind nor inside one the slot refused as such, and not a name the recorded instruction
        says too (its wording, or another value that stayed: "... note it down under Work")."""
        open_names = self.open_names
        # Open slots whose recorded value was a word of the open name's fill themselves once
        # the name is placed (a login "mina" of "Mina Okafor").
        if len(open_names) != 1:
            return None
        slot, app = open_names[0]
        open_values = _open_values(self.binding, self.trace)
        of_name = sum(_word_of(value, slot.recorded) is not None for value in open_values)
        if self.binding.unfilled - of_name != 1:
            return None
        recorded, site = slot.recorded, slot.site
        # Words of the values placed, as written: a login "lucia" placed is no part of the name
        # "Lucia Romano" the task says too.
        taken = {w for value in self.placed_as_said for w in value.split()}
        taken |= {w for name in names_in_sentences(self.trace.instruction) for w in name.split()}
        size = len(recorded.split())
        said = [
            _with_clause_opener(name, self.instruction, size)
            for name in names_in_sentences(self.instruction, plain=not is_name(recorded))
        ]
        refused = self.refused.get(site, set())
        names = [
            name
            for name in dict.fromkeys(said)
            if not set(name.split()) & taken
            and not {w.lower() for w in name.split()} & set(self.kinds.aliases)
            and len(name.split()) <= len(recorded.split()) + 1
            and not any(_words_inside(name, value) for value in refused)
            and not self._wrong_kind(name, site, app)
        ]
        return _Leftover(slot, names[0], name=True) if len(names) == 1 else None

    def _set_replacements(self) -> None:
        """Every step learns the task's (recorded, new) values and its content words."""
        steps, values = self.binding.steps, self.trace.values
        typed_by_key = _typed_values(steps)
        typed = [(values[key], new) for key in values if (new := typed_by_key.get(key, ""))]
        found = tuple((old, new) for old, new in self.pairs + typed if old and new)
        task = frozenset(self.new_words)
        self.binding.steps = [_restep(s, replacements=found, task_words=task) for s in steps]


def _restep(step: ScriptStep, **changes: object) -> ScriptStep:
    """``replace(step, **changes)`` without running ``ScriptStep.__init__`` again: a binding
    copies every step of every run a task retrieves, and ``replace`` (which checks every
    field) was a large part of that."""
    if not _STEP_FIELDS.issuperset(changes):
        raise TypeError(f"ScriptStep has no field {sorted(set(changes) - _STEP_FIELDS)}")
    copy = object.__new__(ScriptStep)
    copy.__dict__.update(step.__dict__, **changes)
    return copy


_STEP_FIELDS = frozenset(f.name for f in fields(ScriptStep))


def _open_values(binding: Binding, trace: Trace) -> list[str]:
    """The recorded values of the typed slots the binding left open."""
    found = []
    for step in binding.steps:
        for slot, source in step.template.text_sources:
            key = step.slot_key(slot)
            if source.from_screen or key is None or slot in step.bound_values:
                continue
            if key in trace.values:
                found.append(trace.values[key])
    return found


def _word_of(value: str, whole: str) -> int | None:
    """Which word of the several-word ``whole`` the one-word ``value`` is, in another case
    ("mina" of "Mina Okafor"), if exactly one is."""
    parts = whole.split()
    if len(value.split()) != 1 or len(parts) < 2 or value in parts:
        return None
    at = [i for i, word in enumerate(parts) if word.lower() == value.lower()]
    return at[0] if len(at) == 1 else None


def _fill_words_of_values(binding: Binding, trace: Trace) -> None:
    """An open slot whose recorded value was a word of another slot's recorded value, in
    another case, takes that word of the other slot's new value, in its own case: the
    recorded run typed the login "mina" for the user "Mina Okafor", so the user "Kofi
    Mensah" gets "kofi", however the task words it (or whether it says the login twice)."""
    placed: list[tuple[str, str]] = []  # (recorded, new) of the slots the binding filled
    for step in binding.steps:
        for slot, new in step.bound_values.items():
            key = step.slot_key(slot)
            if key is not None and key in trace.values:
                placed.append((trace.values[key], new))
    for i, step in enumerate(binding.steps):
        for slot, source in step.template.text_sources:
            key = step.slot_key(slot)
            if source.from_screen or key is None or slot in step.bound_values:
                continue
            recorded = trace.values.get(key, "")
            found = [
                (at, new)
                for whole, new in placed
                if (at := _word_of(recorded, whole)) is not None
                and len(new.split()) == len(whole.split())
            ]
            if len(found) != 1 or step.text != recorded:
                continue
            at, new = found[0]
            word = new.split()[at]
            word = word.lower() if recorded.islower() else word
            binding.steps[i] = step = replace(
                step, text=word, bound_values={**step.bound_values, slot: word}
            )
            binding.unfilled -= 1


def _with_clause_opener(name: str, instruction: str, size: int) -> str:
    """``name`` with the capitalized word opening its clause after ":" or ";" before it,
    where the recorded name had that many more words: that capital may be the name's, not
    the clause's ("... the user maya: [Maya Cohen], maya.cohen@example.org")."""
    if len(name.split()) + 1 != size:
        return name
    match = re.search(rf"[:;]\s+([A-Z][\w'’-]*)\s+{re.escape(name)}(?!\w)", instruction)
    return f"{match.group(1)} {name}" if match else name


def _name_or_title(value: str) -> bool:
    """A name ("Laundry", "Paper Roads") or a short title ("Call mom", "Piano lesson"): a
    capital and at most one more plain word, no number; free text ("Lovely morning run") is
    longer or holds a number."""
    parts = value.split()
    plain = [w for w in parts if not w[:1].isupper()]
    return (
        bool(parts) and parts[0][:1].isupper() and len(plain) <= 1 and len(parts) <= 3
        and not any(c.isdigit() for c in value)
    )  # fmt: skip


def _words_inside(part: str, whole: str) -> bool:
    """``part``'s words are a run of ``whole``'s (case aside)."""
    return part.lower() == whole.lower() or _part_of(part, whole)


def _part_of(typed: str, label: str) -> bool:
    """``typed`` is a run of the words of ``label``, shorter than it."""
    part, whole = typed.lower().split(), label.lower().split()
    return 0 < len(part) < len(whole) and any(
        whole[i : i + len(part)] == part for i in range(len(whole) - len(part) + 1)
    )


def describes_field(value: str, app: str | None, read_fields: Mapping[str, frozenset[str]]) -> bool:
    """``value`` names a field another app shows and runs read values from: it describes
    the value to carry ("the temperature in Hanoi", "the price of the lamp"), it is not one."""
    here = (app or "").lower()
    return any(here not in read_fields.get(word, {here}) for word in content_words(value))


def slot_values(trace: Trace, binding: Binding) -> tuple[dict[SlotKey, str], tuple[SlotKey, ...]]:
    """The new task's value for each slot ``trace`` typed from its instruction, as ``binding``
    filled it, and the slots it could not fill (those keep the trace's own value). A value
    read off a screen is left out: it is read while acting, not from the instruction."""
    values: dict[SlotKey, str] = {}
    missing: list[SlotKey] = []
    for key, recorded in trace.values.items():
        step = next((s for s in binding.steps if _types_slot(s, key)), None)
        source = step.template.source_of(key.slot) if step is not None else None
        if source is not None and source.from_screen:
            continue
        bound = step.bound_values.get(key.slot) if step is not None else None
        if bound is None:
            missing.append(key)
        values[key] = recorded if bound is None else bound
    return values, tuple(missing)


def _types_slot(step: ScriptStep, key: SlotKey) -> bool:
    """Whether ``step`` types the trace's slot ``key`` (an edge may type several fields)."""
    template = step.template
    return (
        template.type is ActionType.TYPE
        and step.slot_key(key.slot) == key
        and template.source_of(key.slot) is not None
    )


def _asks(value: str, instruction: str) -> bool:
    """The question itself where the task wants its answer: "Tell Dana who sings Gold
    Hearts" is not the message "who sings Gold Hearts" ("Ask Dana ..." would be). The
    question and answer words are the task language's."""
    language = tables.default()
    first = value.split(maxsplit=1)[0].lower() if value.strip() else ""
    verb = instruction.split(maxsplit=1)
    return (
        first in language.question_words
        and len(verb) == 2
        and verb[0].lower() in language.answer_verbs
    )


def _typed_values(steps: Sequence[ScriptStep]) -> dict[SlotKey, str]:
    """The new value bound to each of the trace's slots the steps type from the task (the
    first step typing it; "" where it is left open). One pass: asked per slot, it was a
    search of every step for each of the run's slots."""
    found: dict[SlotKey, str] = {}
    for step in steps:
        if step.template.type is not ActionType.TYPE:
            continue
        for slot, source in dict(step.template.text_sources).items():
            key = step.slot_key(slot)
            if key is not None and key not in found and not source.from_screen:
                found[key] = step.bound_values.get(slot, "")
    return found


def _in_field_form(value: str, values: ValueIndex, site: Site, lowered: bool = False) -> str:
    """``value`` written as the field at ``site`` writes its recorded values ("June 27" ->
    "Jun 27"); every recorded value of the field's shape shows how wide its digits are
    (``conform`` uses them only when the field's values agree on that one shape). From a
    task written in lower case (``lowered``), in the case the field's values share."""
    field_values = values.by_site.get(site, set())
    example = next(iter(field_values), "")
    if lowered:
        value = in_field_case(value, field_values)
    return conform(value, field_values, values.shaped_like(example))


def requoted(label: str, old_instruction: str, new_instruction: str) -> bool:
    """Whether the recorded task quoted the tapped ``label`` and the new one quotes a text
    where it stood ('Click on the "确定" button' / 'Click on the "♥♥♥" button'): the quoted
    label was the task's value, though its screen was recorded once with that one value."""
    quoted_old = [q.strip() for q in parse(old_instruction).quoted]
    if label.strip() not in quoted_old:
        return False  # asked of every tap of every run: most recorded tasks quote nothing
    quoted_new = [q.strip() for q in parse(new_instruction).quoted]
    new = align_value(label.strip(), old_instruction, new_instruction)
    if new is None:  # a text of no words ("♥♥♥") aligns with nothing: the one quoted
        return len(quoted_old) == len(quoted_new) == 1
    return new.strip() in quoted_new


def names_kind(word: str, kind: str) -> bool:
    """Whether ``word`` of a task names an element ``kind`` (a role as the world records it):
    the role itself, or its first part ("text" for a "textbox")."""
    word, kind = word.strip().lower(), kind.lower()
    return bool(word) and word.isalpha() and (kind == word or kind.startswith(word))


def kind_said(template: ActionTemplate, old_instruction: str, new_instruction: str) -> str:
    """The kind of element the new task quotes where the recorded one quoted the kind of the
    element it tapped (not its label): "Click on a "radio" widget" tapped a radio labelled
    "GDK"; for "Click on a "button" widget" the tap is on a button. "" when it named none."""
    role, quoted_old = template.target_role, parse(old_instruction).quoted
    if not (role and quoted_old) or template.target_label.lower() in old_instruction.lower():
        return ""  # asked of every tap of every run: most recorded tasks quote nothing
    for said in quoted_old:
        if names_kind(said, role):
            new = align_value(said, old_instruction, new_instruction)
            quoted = parse(new_instruction).quoted
            return new or (quoted[0] if len(quoted) == 1 else "")
    return ""


def _without_kept_punctuation(value: str, text: str, marker: str) -> str:
    """A value that ends in the punctuation the template already keeps after its slot (the
    slot holds "Odio auctor" of a typed "Odio auctor.") loses its own copy."""
    after = text.split(marker, 1)[1][:1] if marker in text else ""
    if after and after in ".,;:" and value.endswith(after):
        return value[: -len(after)]
    return value


def app_sequence(script: Sequence[ScriptStep]) -> list[str]:
    """Apps in the order the script works in them (home screens left out)."""
    order: list[str] = []
    for step in script:
        if step.app and not step.home and (not order or order[-1] != step.app):
            order.append(step.app)
    return order


def segments(script: Sequence[ScriptStep]) -> list[list[ScriptStep]]:
    """The script cut where it changes app; home-screen steps go with the app they open."""
    parts: list[list[ScriptStep]] = []
    pending: list[ScriptStep] = []
    for step in script:
        if step.home:
            pending.append(step)
            continue
        if parts and parts[-1][-1].app == step.app and not pending:
            parts[-1].append(step)
        else:
            parts.append([*pending, step])
        pending = []
    if pending and parts:
        parts[-1].extend(pending)
    return parts


def app_aliases(edges: Sequence[Edge], nodes: Mapping[int, Node]) -> dict[str, str]:
    """Name → app, from the app names themselves and the launcher labels tapped to open them."""
    aliases: dict[str, str] = {}
    for node in nodes.values():
        if node.app and not is_home(node.app):
            aliases.setdefault(node.app.lower(), node.app)
    for edge in edges:
        source, target = nodes.get(edge.source), nodes.get(edge.target)
        if source is None or target is None or not is_home(source.app):
            continue
        label = edge.actions[-1].target_label.strip().lower()
        if label and target.app and not is_home(target.app):
            aliases.setdefault(label, target.app)
    return aliases
