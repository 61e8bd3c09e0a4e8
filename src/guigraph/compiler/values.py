"""The values a knowledge base has seen at each place of a workflow.

A *site* is a graph state and an action kind (typing in the weather search box, tapping in the
contact list). The values recorded there (cities typed, contacts tapped) let slot filling
recognise a new task's value when the phrasing is too different to align word by word.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from guigraph.compiler.slots import normalize_units, stopwords, value_shape, words
from guigraph.graph.records import SlotKey
from guigraph.language import tables
from guigraph.language.casing import Casing
from guigraph.types import ActionType

if TYPE_CHECKING:
    from guigraph.graph.records import Edge, Trace
    from guigraph.language.tables import Language

Site = tuple[int, str]
#: Instructions whose named values are remembered at once (``ValueIndex.names_said``), and
#: tapped labels whose verdict is (``ValueIndex.is_value_label``).
SAID_MEMO = 4096
LABEL_MEMO = 16384
#: A site with fewer recorded values is too small to tell a kind by.
SMALL_SITE = 3
#: A tapped label is a value when at least this share of the runs tapping it named it.
VALUE_SHARE = 0.5
#: A label tapped by at least this share of the runs tapping in a state is a control there.
CONTROL_SHARE = 0.8
#: Fewer visits than this cannot tell a control from a value by how often it is tapped.
MIN_VISITS = 3


_CLOCK_TIME = re.compile(r"([01]?\d|2[0-3]):[0-5]\d")


def _key(value: str) -> str:
    return " ".join(w.lower() for w in words(value))


def type_site(node: int, field_label: str) -> Site:
    """Typing happens in a field: the site is the state and the field tapped before it, so a
    form's title, date and time each have their own values."""
    return (node, f"type:{field_label.strip().lower()}")


def label_in_instruction(label: str, instruction: str) -> bool:
    """Whether the instruction names the label, as whole words ("title" is not in "titled")."""
    text = label.strip().lower()
    if len(text) < 2:
        return False
    return _whole(text).search(normalize_units(instruction).lower()) is not None


def label_named_as_shown(label: str, instruction: str) -> bool:
    """Whether the instruction names the label as the screen writes it, as a value is named:
    "my note Groceries" names the note "Groceries"; "open the lyrics of ..." and "Like the
    song ..." (a capital only because the sentence starts there) talk about the buttons
    "Lyrics" and "Like". A label without capitals cannot tell by case."""
    if not label_in_instruction(label, instruction):
        return False
    text = label.strip()
    if text == text.lower():
        return True
    said = normalize_units(instruction).lstrip()
    return any(match.start() > 0 for match in _whole(text).finditer(said))


#: Marks around a label's words: a link ":hiking", a tag "#travel", a count "(3)".
_MARKED = re.compile(r"^(\W*)(.*?\w)(\W*)$", re.DOTALL)


def named_part(label: str, instruction: str) -> tuple[str, str, str]:
    """``label`` as (marks before, the value the instruction names, marks after): the whole
    label where the instruction names it as shown, else the label without the marks around
    its words (the screen writes the page "hiking" as the link ":hiking", a tag as "#travel").
    The value is "" where the instruction names neither."""
    if label_named_as_shown(label, instruction):
        return "", label, ""
    marked = _MARKED.match(label.strip())
    if marked is None or not (marked.group(1) or marked.group(3)):
        return "", "", ""
    before, core, after = marked.groups()
    return (before, core, after) if label_named_as_shown(core, instruction) else ("", "", "")


@functools.lru_cache(maxsize=4096)
def _whole(text: str, flags: int = 0) -> re.Pattern[str]:
    """``text`` as whole words (not "title" in "titled")."""
    return re.compile(rf"(?<!\w){re.escape(text)}(?!\w)", flags)


class ValueIndex:
    def __init__(self) -> None:
        self.by_site: dict[Site, set[str]] = defaultdict(set)
        self._pools: dict[Site, set[str]] | None = None
        self._by_value: dict[str, list[Site]] | None = None
        self._by_head: dict[str, list[Site]] = {}
        self._longest = 0
        #: (state, label) -> [runs whose instruction named the label, runs that tapped it]
        self.tapped: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0])
        self._site_keys: dict[Site, frozenset[str]] = {}
        self._known_at: dict[Site, frozenset[str]] = {}
        self._holder_kinds: dict[str, list[frozenset[str]]] = {}
        self._foreign: dict[tuple[str, Site], bool] = {}
        self._tap_kin: dict[str, frozenset[str]] | None = None
        self._by_shape: dict[str, list[str]] | None = None
        self._said: dict[str, tuple[str, ...]] = {}
        self._value_labels: dict[tuple[int, str, str, Language], bool] = {}
        self._on_24_hour_clock: bool | None = None
        #: state -> runs that tapped something there
        self.visits: dict[int, int] = defaultdict(int)
        #: How the recorded instructions and names write each word (a lower-cased task's
        #: capitals are given back from it).
        self.casing = Casing()

    @classmethod
    def build(cls, traces: Iterable[Trace], edges: dict[int, Edge]) -> ValueIndex:
        index = cls()
        for trace in traces:
            index.add_trace(trace, edges)
        return index

    def add_trace(self, trace: Trace, edges: dict[int, Edge]) -> None:
        self._pools = None
        self._by_value = None
        self._by_shape = None
        self._on_24_hour_clock = None
        self._said.clear()
        self._value_labels.clear()
        self._site_keys.clear()
        self._known_at.clear()
        self._holder_kinds.clear()
        self._foreign.clear()
        self._tap_kin = None
        steps = trace.recorded_actions(edges)
        self.casing.learn_text(trace.instruction)
        for recorded in trace.values.values():
            self.casing.learn_value(recorded)
        for node in {node for node, _, t in steps if t.taps}:
            self.visits[node] += 1
        field = ""
        for node, edge_id, template in steps:
            if template.type is ActionType.TYPE:
                for slot, source in template.text_sources:
                    value = trace.values.get(SlotKey(edge_id, slot))
                    if value and not source.from_screen:
                        self.by_site[type_site(node, field)].add(value)
            elif template.taps:
                field = template.target_label
                named = bool(named_part(template.target_label, trace.instruction)[1])
                counts = self.tapped[(node, template.target_label)]
                counts[0] += int(named)
                counts[1] += 1
                if named:
                    self.by_site[(node, "click")].add(template.target_label)

    def sites_naming(self, instruction: str) -> list[Site]:
        """Sites with a recorded value that the instruction names (a known contact, city).

        Looks the instruction's word n-grams up in an index of the values, so the cost grows
        with the instruction, not with the knowledge base.
        """
        tokens = [w.lower() for w in words(instruction)]
        found: dict[Site, None] = {}  # in order of finding, each once (a value at many sites)
        for key in self._known_grams(tokens):
            found.update(dict.fromkeys(self._by_value_index()[key]))
        # A new value of a known kind: "Zephyr kettle" was never recorded, but kettles were
        # ("Atlas kettle"), so the place where products are typed is still the right one.
        for token in tokens:
            if len(token) >= 4:
                found.update(dict.fromkeys(self._by_head.get(token, ())))
        return list(found)

    def names_said(self, instruction: str) -> list[str]:
        """Recorded values the instruction names as a name is written (a contact "Chen", a
        city "Rome": capitalized as recorded, not only because a sentence starts there),
        longest first. A plan that uses none of one leaves part of the task undone."""
        known = self._said.get(instruction)
        if known is not None:
            return list(known)  # binding asks again for each value it weighs
        tokens = [w.lower() for w in words(instruction)]
        said = []
        for key in sorted(set(self._known_grams(tokens)), key=lambda k: (-len(k), k)):
            recorded = next(
                (
                    v
                    for site in self._by_value_index()[key]
                    for v in self.by_site[site]
                    if _key(v) == key and (site[1] != "click" or self._named_as_value(site[0], v))
                ),
                "",  # only a control's label ("Submit"): no value
            )
            if recorded != recorded.lower() and label_named_as_shown(recorded, instruction):
                said.append(recorded)
        if len(self._said) >= SAID_MEMO:
            self._said.clear()  # an evaluation of many tasks: keep the memory bounded
        self._said[instruction] = tuple(said)
        return said

    def said_only_inside_names(self, value: str, instruction: str) -> bool:
        """Whether the instruction says ``value`` only as part of a longer recorded name:
        "the Call Alice note" names a note, not the contact Alice."""
        said = normalize_units(instruction)
        rest = said
        for name in self.names_said(instruction):
            if len(name) > len(value) and label_in_instruction(value, name):
                rest = _whole(name, re.IGNORECASE).sub(" ", rest)
        return rest != said and not label_in_instruction(value, rest)

    def shaped_like(self, value: str) -> list[str]:
        """Recorded values, at any site, with the shape of ``value`` ("06:30" for "9:30"):
        indexed once, since binding asks for a field's kind in every plan. Each value once,
        however many sites hold it: a large knowledge base holds the same times at thousands
        of places, and a form is read off the values, not off how often they were seen."""
        if self._by_shape is None:
            by_shape: dict[str, dict[str, None]] = defaultdict(dict)
            for values in self.by_site.values():
                for known in values:
                    by_shape[value_shape(known)].setdefault(known)
            self._by_shape = {shape: list(known) for shape, known in by_shape.items()}
        return self._by_shape.get(value_shape(value), [])

    @property
    def on_24_hour_clock(self) -> bool:
        """Whether the recorded values write times on the 24-hour clock: one was typed or
        tapped past 12:59 or before 1:00 ("22:00", "00:30")."""
        if self._on_24_hour_clock is None:
            self._on_24_hour_clock = any(
                (match := _CLOCK_TIME.fullmatch(value)) is not None
                and not 1 <= int(match.group(1)) <= 12
                for values in self.by_site.values()
                for value in values
            )
        return self._on_24_hour_clock

    def _by_value_index(self) -> dict[str, list[Site]]:
        self._sites_of("")  # builds the index
        assert self._by_value is not None
        return self._by_value

    def _known_grams(self, tokens: list[str]) -> list[str]:
        """The word n-grams of ``tokens`` that are recorded values, shortest first: the cost
        grows with the instruction, not with the knowledge base."""
        index = self._by_value_index()
        grams = (
            " ".join(tokens[start : start + size])
            for size in range(1, self._longest + 1)
            for start in range(len(tokens) - size + 1)
        )
        return [key for key in grams if key in index]

    def kin(self, site: Site, shared: int = 3) -> list[Site]:
        """Sites holding the same kind of value as ``site``: ``shared`` recorded values in
        common (contacts tapped in Messages, typed into Mail's "To")."""
        counts: dict[Site, int] = defaultdict(int)
        for value in self.by_site.get(site, ()):
            for other in self._sites_of(value):
                counts[other] += 1
        return [other for other, n in counts.items() if n >= shared]

    def _sites_of(self, value: str) -> list[Site]:
        if self._by_value is None:
            self._by_value = defaultdict(list)
            for site, values in self.by_site.items():
                for known in values:
                    self._by_value[_key(known)].append(site)
            self._longest = max((len(k.split()) for k in self._by_value), default=0)
            self._by_head = defaultdict(list)
            empty = stopwords()
            for key, holders in self._by_value.items():
                parts = key.split()
                if len(parts) >= 2 and parts[-1] not in empty:
                    self._by_head[parts[-1]].extend(holders)
        return self._by_value.get(_key(value), [])

    def known(self, site: Site) -> frozenset[str]:
        """Values seen at ``site`` (pooled with sites sharing values); for taps, only labels
        that behave as values (see :meth:`is_value_label`), never a control like "Save".
        Remembered per site: each slot filled there asks again."""
        found = self._known_at.get(site)
        if found is None:
            values = self._known(site)
            if site[1] == "click":
                values = {v for v in values if self._named_as_value(site[0], v)}
            found = self._known_at[site] = frozenset(values)
        return found

    def foreign(self, value: str, site: Site) -> bool:
        """Whether ``value`` is of another kind than the values of ``site``: recorded at a
        place that never shared a value with this one ("Sydney", typed where cities go,
        offered as a product). A value seen only in free text (a note's body) is not.

        Remembered per (value, site): binding asks about the same pairs in every episode.
        """
        key = _key(value)
        verdict = self._foreign.get((key, site))
        if verdict is None:
            # The site's own values, not its pool: a note's body holds cities and products
            # alike, and pools through it join every kind.
            own = self._keys(site)
            verdict = (
                key not in own
                and not self._kept_with(key, own)
                and (
                    self._of_other_kind(value, own, site)
                    or any(self._of_other_kind(part, own, site) for part in self._known_parts(key))
                )
            )
            self._foreign[(key, site)] = verdict
        return verdict

    def _of_other_kind(self, value: str, own: frozenset[str], site: Site) -> bool:
        return not self._same_numeric_shape(value, site) and any(
            len(theirs) >= SMALL_SITE and theirs.isdisjoint(own)
            for theirs in self._kinds_holding(value)
        )

    def _kinds_holding(self, value: str) -> list[frozenset[str]]:
        """The value sets of the sites holding ``value``, each set once: a large knowledge
        base holds a contact at thousands of screens that all hold the same contacts."""
        key = _key(value)
        kinds = self._holder_kinds.get(key)
        if kinds is None:
            kinds = list(dict.fromkeys(map(self._keys, self._sites_of(value))))
            self._holder_kinds[key] = kinds
        return kinds

    def _kept_with(self, key: str, own: frozenset[str]) -> bool:
        """Whether the lists ``key`` was tapped in also offered one of ``own``: a share sheet
        that offered both "Chen" and "Farah" makes Farah a contact like those tapped in a
        conversation list that only ever held Chen, Dana and Emeka, however little two places'
        values overlap in a small knowledge base. Only tapped values chain places together:
        each list offers one kind, where a typed field may hold several (a note's body)."""
        if self._tap_kin is None:
            self._tap_kin = self._tap_pools()
        return not self._tap_kin.get(key, frozenset()).isdisjoint(own)

    def _tap_pools(self) -> dict[str, frozenset[str]]:
        """Each value tapped as a value -> every value tapped at a place joined to one of its
        places by a value tapped at both."""
        import networkx as nx

        graph = nx.Graph()
        for site, labels in self.by_site.items():
            if site[1] != "click":
                continue
            for label in labels:
                if self._named_as_value(site[0], label):
                    graph.add_edge(site, ("value", _key(label)))
        pools: dict[str, frozenset[str]] = {}
        for component in nx.connected_components(graph):
            keys = frozenset(node[1] for node in component if node[0] == "value")
            pools.update(dict.fromkeys(keys, keys))
        return pools

    def _known_parts(self, key: str) -> list[str]:
        """Recorded values of two or more words inside ``key`` ("buy a Lumen camera bag"
        holds the product "lumen camera bag"): a value wrapped in words of another kind's
        task is still of its own kind, and the wrapping does not make it fit here."""
        self._sites_of("")  # builds the index
        assert self._by_value is not None
        tokens = key.split()
        return [
            part
            for size in range(2, min(self._longest, len(tokens) - 1) + 1)
            for start in range(len(tokens) - size + 1)
            if (part := " ".join(tokens[start : start + size])) in self._by_value
            and not any(c.isdigit() for c in part)
        ]

    def _same_numeric_shape(self, value: str, site: Site) -> bool:
        """Times, dates and amounts are too many for two places to share one by chance: an
        alarm's "06:45" and an event's "10:45" are one kind because they look alike."""
        if not any(c.isdigit() for c in value):
            return False
        shape = value_shape(value)
        return any(value_shape(v) == shape for v in self.by_site.get(site, ()))

    def _keys(self, site: Site) -> frozenset[str]:
        keys = self._site_keys.get(site)
        if keys is None:
            keys = frozenset(_key(v) for v in self.by_site.get(site, ()))
            self._site_keys[site] = keys
        return keys

    def _named_as_value(self, node: int, label: str) -> bool:
        """Whether ``label`` behaves as a value at ``node``: the runs tapping it mostly named
        it (a recording's stray tap on a note, then back, does not make its title a control),
        and it is not tapped by nearly every run that taps anything in the state, as a form's
        "Save" is even when most instructions happen to say "save"."""
        named, total = self.tapped.get((node, label), [0, 0])
        if total == 0:
            return True
        if named < VALUE_SHARE * total:
            return False
        visits = self.visits.get(node, 0)
        return visits < MIN_VISITS or total < CONTROL_SHARE * visits

    def _known(self, site: Site) -> set[str]:
        """Values seen at ``site`` and at every site that shares values with it.

        Contacts tapped in Messages and typed into Mail's "To" field are one kind of value; a
        name seen only in one app still counts as a contact in the other.
        """
        if self._pools is None:
            self._pools = self._pool_sites()
        return self._pools.get(site, self.by_site.get(site, set()))

    def _pool_sites(self) -> dict[Site, set[str]]:
        """Union of the sites that share a recorded value (one shared value makes a pool: a
        site seen once still joins its kind), through the value index: linear in the values,
        not quadratic in the sites."""
        sites = [site for site, values in self.by_site.items() if values]
        parent = {site: site for site in sites}

        def root(site: Site) -> Site:
            while parent[site] != site:
                parent[site] = parent[parent[site]]
                site = parent[site]
            return site

        self._sites_of("")
        assert self._by_value is not None
        for holders in self._by_value.values():
            for other in holders[1:]:
                parent[root(other)] = root(holders[0])
        pooled: dict[Site, set[str]] = defaultdict(set)
        for site in sites:
            pooled[root(site)] |= self.by_site[site]
        return {site: pooled[root(site)] for site in sites}

    def is_value_label(self, node: int, label: str, instruction: str) -> bool:
        """Whether a tapped label is the task's value ("Paris" in a list of cities) rather
        than a control that an instruction happens to name ("save it in a note").

        A control ("Save") is tapped whether or not the instruction says "save"; a value is
        tapped only in runs that named it, and the state offers several such values, or the
        label is a value somewhere else too (a share sheet seen once, with a contact that was
        also typed into Messages). A label the run named within marks (the link ":hiking" of
        the page "hiking") counts as named (``named_part``).

        Remembered per (state, label, recorded instruction, task language): every task that
        retrieves a recorded run asks it again for each of the run's taps.
        """
        key = (node, label, instruction, tables.default())
        known = self._value_labels.get(key)
        if known is None:
            if len(self._value_labels) >= LABEL_MEMO:
                self._value_labels.clear()  # an evaluation of many tasks: keep it bounded
            known = self._value_labels[key] = self._is_value_label(node, label, instruction)
        return known

    def _is_value_label(self, node: int, label: str, instruction: str) -> bool:
        if not named_part(label, instruction)[1] or not self._named_as_value(node, label):
            return False
        site = (node, "click")
        values = {v for v in self.by_site.get(site, set()) if self._named_as_value(node, v)}
        return len(values) >= 2 or any(other != site for other in self._sites_of(label))
