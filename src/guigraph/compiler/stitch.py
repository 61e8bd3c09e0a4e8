"""Choosing what to follow: one recorded trace, or segments of several stitched together.

Every option is bound to the new instruction and scored by how much of the instruction it
explains (values it found a place for, words its donor instructions share, apps named) minus
the values it needs but cannot fill. A recorded template usually wins as one trace; a task
never recorded ("tell Greta the temperature in Denver") is covered by the weather segment of
one trace and the messaging segment of another. Segments are ordered by data flow: one that
types a value read off another app's screen comes after the segment that reads it.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from guigraph.compiler.contained import InnerRuns, inner_words
from guigraph.compiler.controls import shown_control_words
from guigraph.compiler.fields import (
    FieldKnowledge,
    answers_more,
    asked_fields,
    carry_asked_fields,
    describes,
    offered_fields,
    read_parts,
    source_words,
    until_shown,
)
from guigraph.compiler.script import (
    Binding,
    FillCache,
    KindClues,
    ScriptStep,
    app_sequence,
    bind,
    segments,
    trace_script,
)
from guigraph.compiler.slots import (
    clauses,
    content_word_counts,
    content_words,
    counts,
    introduced_as_new,
    stopwords,
    words,
)
from guigraph.compiler.values import ValueIndex, label_in_instruction
from guigraph.envs import conventions
from guigraph.graph.records import TextSource
from guigraph.language import tables
from guigraph.language.parse import parse
from guigraph.types import ActionType, id_less_key_app

if TYPE_CHECKING:
    from guigraph.compiler.records import RetrievedTrace
    from guigraph.embed.base import TextEncoder
    from guigraph.graph.records import Edge, Node, Trace

#: How much the instruction similarity of a trace (cosine, 0..1) weighs against the words it
#: explains: enough to break ties between traces that explain the same words.
SIMILARITY_WEIGHT = 3.0
UNFILLED_PENALTY = 2.0
#: A word of the instruction explained as a value (a city typed, a contact tapped) is stronger
#: evidence that a piece belongs to the task than a word its donor instruction shares.
VALUE_WEIGHT = 2.0
SEGMENT_COST = 0.5
#: A value the task names (a known contact, city) that the plan never uses.
UNUSED_NAME_PENALTY = 1.0
#: Per app where a plan disagrees with the words marking it (``_misfits``).
MISFIT_PENALTY = 1.0
CONTEXT_WINDOW = 3


@dataclass
class PlanChoice:
    steps: list[ScriptStep]
    donors: list[str]
    score: float
    stitched: bool
    claimed: dict[str, float] = field(default_factory=dict)


class PlanKnowledge(Protocol):
    """What ranking reads (never writes) of the knowledge base: states, transitions, values,
    app names, what runs said and read. ``index.GraphView`` is one (typed as it types them)."""

    edges: dict[int, Edge]
    nodes: dict[int, Node]
    values: ValueIndex
    aliases: dict[str, str]
    id_apps: dict[str, str]
    app_counts: dict[str, int]
    markers: dict[str, set[str]]
    field_words: dict[str, frozenset[str]]
    read_fields: dict[str, frozenset[str]]
    said_words: dict[str, frozenset[str]]
    read_at: dict[str, frozenset[int]]
    encoder: TextEncoder | None
    control_words: dict[str, str]
    inner_runs: dict[str, InnerRuns]


def source_app(source: TextSource, id_apps: Mapping[str, str] | None = None) -> str:
    """A screen source -> the app that shows it ("weather"), lower-cased: the app of the
    recorded screens showing that element, else the app the world's id names."""
    key = source.key
    apps = id_apps or {}
    if key in apps:
        return apps[key].lower()
    scope = id_less_key_app(key)
    if scope is not None:
        # An id-less key names its screen's app (``element_keys``), though the recorded
        # screens may show it under another rank ("#1" read where "#0" was seen).
        return apps.get(scope, scope).lower()
    owner = conventions.active().parse_id(key).app
    return apps.get(owner, owner).lower()


def apps_named(instruction: str, aliases: Mapping[str, str]) -> list[str]:
    """Apps the instruction names, by app name or launcher label ("message" names an app
    labelled "Messages")."""
    wanted = content_words(instruction)
    named = []
    for alias, app in aliases.items():
        if app not in named and any(_word_matches(w, wanted) for w in content_words(alias)):
            named.append(app)
    return named


def _word_matches(word: str, wanted: set[str]) -> bool:
    suffix = tables.default().plural_suffix
    if word in wanted:
        return True
    return bool(suffix) and (
        word + suffix in wanted or (word.endswith(suffix) and word[: -len(suffix)] in wanted)
    )


def rank_plans(
    instruction: str, retrieved: Sequence[RetrievedTrace], kb: PlanKnowledge, *,
    fills: FillCache | None = None, allow_stitching: bool = True,
) -> list[PlanChoice]:  # fmt: skip
    """Every option, best first, read in the task's language: the team falls back on the next
    when one proves unworkable (the recorded contact is not in this phone's list, so another
    recorded way is needed).

    A retrieved trace already bound by retrieval keeps that binding; ``fills`` (retrieval's
    cache) makes every other slot filled for this task be worked out once."""
    if not retrieved:
        return []
    with tables.using(tables.of(instruction)):
        context = _Context.of(instruction, kb, {} if fills is None else fills, allow_stitching)
        scripts = {
            r.trace.episode_id: list(r.binding.recorded)
            if r.binding is not None
            else trace_script(r.trace, kb.edges, kb.nodes)
            for r in retrieved
        }
        options = [_single(context, r, scripts[r.trace.episode_id]) for r in retrieved]
        _add_similarity(context, options, retrieved)
        options.sort(key=lambda o: o.score, reverse=True)
        if allow_stitching:
            _insert_stitched(context, options, retrieved, scripts)
            _read_counted_parts(context, options)
        return options


def _add_similarity(
    context: _Context, options: list[PlanChoice], retrieved: Sequence[RetrievedTrace]
) -> None:
    """The similarity term, for the traces that open every app the task marks ("email what it
    says" is most like "text what it says", and that likeness is no evidence for a plan
    that texts). One encoding for them all: a call costs the encoder a millisecond."""
    alike = [
        (option, item)
        for option, item in zip(options, retrieved, strict=True)
        if not context.marked - set(app_sequence(option.steps))
    ]
    encoder = context.kb.encoder
    similarities = (
        [item.score for _, item in alike]
        if encoder is None
        else frame_similarities(
            encoder, [(item.trace.instruction, option.steps) for option, item in alike],
            context.instruction,
        )
    )  # fmt: skip
    for (option, _), similarity in zip(alike, similarities, strict=True):
        option.score += SIMILARITY_WEIGHT * similarity


def _insert_stitched(
    context: _Context, options: list[PlanChoice], retrieved: Sequence[RetrievedTrace],
    scripts: Mapping[str, list[ScriptStep]],
) -> None:  # fmt: skip
    """The best stitched plan, first where it clearly beats the best trace, else second."""
    stitched = _stitch(context, retrieved, scripts)
    if stitched is None:
        return
    # A recorded workflow is safer than a new combination: stitch only for a clear
    # gain, unless the trace disagrees with the apps the task marks (it texts where
    # the task says "email"): then it is no recorded way of doing this task.
    best = options[0]
    margin = 0.0 if _misfits(app_sequence(best.steps), context) else STITCH_MARGIN
    options.insert(0 if stitched.score > best.score + margin else 1, stitched)


def _read_counted_parts(context: _Context, options: list[PlanChoice]) -> None:
    parts = counts(context.instruction)
    if parts:
        # "The first 2 lines": each plan types the lines below the one it reads too. Where
        # they are is what the graph's states show; the trace baseline follows its trace as
        # recorded, as it does for the fields ``_carry`` swaps.
        kb = context.kb
        for option in options:
            option.steps = read_parts(option.steps, parts, kb.nodes, kb.field_words, kb.said_words)


def _carry(context: _Context, steps: list[ScriptStep]) -> tuple[list[ScriptStep], int]:
    """The steps carrying the fields the task asks for, and how many values they still
    carry that the task never asks for (a lyric line where it wants a temperature). The
    trace baseline follows its trace as recorded: the fields a state shows are graph
    knowledge."""
    kb, asked = context.kb, context.asked
    carried = steps if not context.allow_stitching else carry_asked_fields(
        steps, asked, context.app_of,
        FieldKnowledge(kb.nodes, kb.field_words, kb.said_words, kb.read_at),
    )  # fmt: skip
    if not context.asks_for_a_field:
        return carried, 0
    unasked = sum(
        not describes(source, asked, kb.field_words, kb.said_words)
        for step in carried
        for _, source in step.screen_slots
    )
    return carried, unasked


def _single(context: _Context, item: RetrievedTrace, script: list[ScriptStep]) -> PlanChoice:
    """``item``'s trace followed whole, bound to the task and scored by what it explains."""
    instruction, values, wanted = context.instruction, context.kb.values, context.wanted
    binding = item.binding or context.bind(script, item.trace)
    steps, unasked = _carry(context, binding.steps)
    # What the trace did, as its controls show it, for words no recorded task says.
    control_words = context.kb.control_words
    shown = shown_control_words(binding.steps, values, item.trace.instruction, control_words)
    naming_apps = context.named_apps(app_sequence(binding.steps))
    shared = content_words(item.trace.instruction) | naming_apps | shown
    misfits = _misfits(app_sequence(binding.steps), context)
    inner = context.kb.inner_runs.get(item.trace.episode_id)
    if inner is not None and not misfits & inner.added_apps:
        # What the runs inside this one did, it did first: their words explain it too. Not
        # where it goes on in another app the task's words do not fit (it emails the
        # article's headline where the task asks to text it).
        shared |= inner_words(instruction, shared, binding.claimed, inner, naming_apps)
    if _same_words(item.trace.instruction, instruction):
        # The very task recorded again: every word is explained, as well as values can be (a
        # loose alignment elsewhere must not outbid it: "Select [L0] and click Submit" read
        # "section below" as its value for "Expand the section below and click submit").
        claimed = _weigh(wanted, wanted)
    else:
        claimed = _weigh(binding.claimed & wanted, shared & wanted)
    score = sum(claimed.values()) - UNFILLED_PENALTY * binding.unfilled
    # A recorded name the task says (a contact, a city; an app's name is none) that the trace
    # neither uses nor explains: "Text Chen the first line of the lyrics ..." names the
    # contact Chen, and a trace that posts the line never does.
    explained = set(claimed) | binding.claimed
    unused = sum(not content_words(name) & explained for name in context.names)
    score -= UNUSED_NAME_PENALTY * unused + UNFILLED_PENALTY * unasked
    # As for a stitched piece: every recorded use of an app says "email" and this task does
    # not, or the task says "email" and the trace never opens Mail.
    score -= MISFIT_PENALTY * len(misfits)
    score -= UNFILLED_PENALTY * _taps_new_things(binding.steps, instruction)
    return PlanChoice(steps, [item.trace.episode_id], score, False, claimed)


def _taps_new_things(steps: Sequence[ScriptStep], instruction: str) -> int:
    """How many values the plan taps as things on a screen that the task names as things to
    make ("add a new page theatre"): a recorded run that found its value ("to the page
    projects") does another task than one that made it. A value the plan also types is named
    by the run itself (typed as the new thing's name, then tapped where the screen shows what
    was typed): tapping it is no sign it existed before."""
    tapped = {
        s.label for s in steps if s.template.taps and s.label and s.label != s.template.target_label
    }
    # Compared by words, case and marks aside: the link ":Theatre" shows the "theatre" typed.
    typed = {parse(s.text).lowered for s in steps if s.template.type is ActionType.TYPE and s.text}
    return sum(
        introduced_as_new(label, instruction) and parse(label).lowered not in typed
        for label in tapped
    )


def frame_similarities(
    encoder: TextEncoder, recorded: Sequence[tuple[str, Sequence[ScriptStep]]], instruction: str
) -> list[float]:
    """How alike ``instruction`` is to each recorded instruction in what they ask, the values
    its steps' binding placed left out of both: the bound values are scored as values
    already, and a recorded run that happened to use the task's product ("Put a Atlas
    sneakers in the shopping cart") is no closer to "Can you order the Atlas sneakers?" than
    a purchase of another product is."""
    texts = []
    for old, steps in recorded:
        pairs = steps[0].replacements if steps else ()
        texts += [
            _without(old, [o for o, _ in pairs]),
            _without(instruction, [n for _, n in pairs]),
        ]
    if not texts:
        return []
    rows = encoder.encode(texts)
    return [float(rows[i] @ rows[i + 1]) for i in range(0, len(texts), 2)]


def _without(text: str, values: Sequence[str]) -> str:
    """``text`` with each of ``values`` (as whole words, any case) taken out."""
    for value in sorted(set(values), key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


def _misfits(apps: Sequence[str], context: _Context) -> set[str]:
    """Apps where a plan disagrees with the words that mark them: it works in an app the task
    does not mark (every recorded use of Mail says "email"; this task does not), or never
    opens one of the apps the task marks (it says "email"; the plan texts)."""
    visited = set(apps)
    unmarked = {app for app in visited if _unmarked(app, context)}
    return unmarked | (context.marked - visited)


def _marked_apps(markers: Mapping[str, set[str]], wanted: set[str]) -> frozenset[str]:
    """The apps the task says a marker of."""
    return frozenset(app for app, marks in markers.items() if marks & wanted)


def _unmarked(app: str, context: _Context) -> bool:
    """The task says none of the words nearly every recorded use of ``app`` says, and does not
    name the app either ("mail it to Dana" names it where recorded tasks all say "email")."""
    marks, wanted = context.kb.markers.get(app, set()), context.wanted
    return bool(marks) and not marks & wanted and not context.named_apps([app])


def _same_words(a: str, b: str) -> bool:
    return words(a.lower()) == words(b.lower())


def _weigh(values: set[str], others: set[str]) -> dict[str, float]:
    weights = dict.fromkeys(others, 1.0)
    weights.update(dict.fromkeys(values, VALUE_WEIGHT))
    return weights


def _named_apps(apps: Sequence[str], aliases: Mapping[str, str], wanted: set[str]) -> set[str]:
    """Words of the instruction that name one of ``apps``."""
    named: set[str] = set()
    for alias, app in aliases.items():
        if app in apps:
            for word in content_words(alias):
                named |= {w for w in wanted if _word_matches(word, {w})}
    return named


def _naming_words(aliases: Mapping[str, str], wanted: set[str]) -> dict[str, frozenset[str]]:
    """App -> the words of ``wanted`` that name it (``_named_apps`` of each app at once)."""
    naming: dict[str, set[str]] = {}
    for alias, app in aliases.items():
        found = naming.setdefault(app, set())
        for word in content_words(alias):
            found |= {w for w in wanted if _word_matches(word, {w})}
    return {app: frozenset(found) for app, found in naming.items()}


@dataclass(frozen=True)
class _Context:
    """The task as ranking reads it, beside what the knowledge base knows (``kb``)."""

    instruction: str
    kb: PlanKnowledge
    fills: FillCache
    wanted: set[str]
    asked: frozenset[str]
    #: The task names a field recorded runs read: only a piece reading that field feeds it.
    asks_for_a_field: bool
    #: The apps the task says a marker of (``_marked_apps``).
    marked: frozenset[str]
    #: Recorded names the task says (a contact, a city; an app's name is none).
    names: Sequence[str]
    allow_stitching: bool
    #: App -> the task's words naming it (``_named_apps``): asked for every piece weighed.
    naming: Mapping[str, frozenset[str]]

    @classmethod
    def of(
        cls, instruction: str, kb: PlanKnowledge, fills: FillCache, allow_stitching: bool
    ) -> _Context:
        wanted, asked = content_words(instruction), asked_fields(instruction, kb.aliases)
        # The task names a field that recorded runs read ("the temperature"; not "note", which
        # marks the app it is written in): a plan carrying another field's value misses it.
        app_marks = {w for marks in kb.markers.values() for w in marks}
        asks_for_a_field = any(w in kb.read_fields and w not in app_marks for w in asked)
        names = [v for v in kb.values.names_said(instruction) if v.lower() not in kb.aliases]
        return cls(
            instruction, kb, fills, wanted, asked, asks_for_a_field,
            _marked_apps(kb.markers, wanted), names, allow_stitching,
            _naming_words(kb.aliases, wanted),
        )  # fmt: skip

    def app_of(self, source: TextSource) -> str:
        return source_app(source, self.kb.id_apps)

    def named_apps(self, apps: Sequence[str]) -> set[str]:
        """Words of the task that name one of ``apps`` (``_named_apps``)."""
        return {w for app in set(apps) for w in self.naming.get(app, ())}

    def bind(self, steps: Sequence[ScriptStep], trace: Trace) -> Binding:
        """``steps`` of ``trace`` bound to the task, every slot filled once per task."""
        kinds = KindClues(self.kb.aliases, self.kb.read_fields)
        return bind(steps, trace, self.instruction, self.kb.values, self.fills, kinds)


@dataclass
class _Piece:
    app: str
    binding: Binding
    claimed: dict[str, float]
    produces: list[TextSource]  # screen sources (of this app) whose values the donor carried
    consumes: list[TextSource]  # screen sources of other apps this piece types
    trace: Trace
    rank: int
    penalty: float = 0.0
    prior: float = 0.0  # how common the app is in the knowledge base: a tie-breaker
    answers: bool = False  # it reads a field the task asks for
    #: The task's values it puts (words it claims by binding). Kept, not derived: the stitch
    #: search weighs thousands of sets of pieces.
    puts: frozenset[str] = frozenset()

    @property
    def gain_base(self) -> float:
        return -UNFILLED_PENALTY * self.binding.unfilled - SEGMENT_COST - self.penalty


MAX_PIECES = 4
CANDIDATE_PIECES = 24
CANDIDATE_PIECES_FOR_FOUR = 16
PIECES_PER_APP = 6
#: A piece that types a value read in another app needs a piece that reads one first.
FLOW_BONUS = 2.0
#: Per piece that only repeats values other pieces put (``_repeating``).
REPEATED_VALUE_PENALTY = 1.0
#: A piece reads the field the task asks for and no piece types it (``_combo_score``).
UNUSED_ANSWER_PENALTY = 1.0
PRIOR_WEIGHT = 0.3
#: Added to a bound before it is compared: sums of floats in another order may differ by
#: far less.
BOUND_SLACK = 1e-6
STITCH_MARGIN = 1.0


def _stitch(
    context: _Context, retrieved: Sequence[RetrievedTrace], scripts: Mapping[str, list[ScriptStep]]
) -> PlanChoice | None:
    """The best set of two to four pieces (one per app), searched exhaustively over the most
    promising pieces: a greedy pick cannot see that a reader of the price needs the piece that
    reads it. A piece that explains nothing of the instruction cannot help and is left out;
    sets of four are searched over fewer pieces (the count of sets grows as n^4)."""
    pieces = [
        piece
        for rank, item in enumerate(retrieved)
        for piece in _pieces(context, item, scripts[item.trace.episode_id], rank)
    ]
    pieces = [p for p in pieces if p.claimed]
    pieces.sort(key=lambda p: (sum(p.claimed.values()) + p.gain_base, -p.rank), reverse=True)
    pieces = _distinct(pieces)[:CANDIDATE_PIECES]
    said = content_word_counts(context.instruction)
    best: tuple[float, list[_Piece]] | None = None
    bounds = {id(p): _score_bound(p) for p in pieces}
    for size in range(2, MAX_PIECES + 1):
        pool = pieces if size < MAX_PIECES else _best_per_app(pieces)
        for combo in itertools.combinations(pool, size):
            if len({p.app for p in combo}) < size or len({p.trace.episode_id for p in combo}) < 2:
                continue  # one app twice, or one trace's own segments: the single option
            if (
                best is not None
                and sum(bounds[id(p)] for p in combo)
                + SEGMENT_COST
                - (MISFIT_PENALTY * len(context.marked - {p.app for p in combo}))
                + BOUND_SLACK
                <= best[0]
            ):
                continue  # cannot score above the best: only a higher score replaces it
            score = _combo_score(list(combo), said, context.asks_for_a_field, context.marked)
            if best is None or score > best[0]:
                best = (score, list(combo))
    if best is None:
        return None
    ordered = _data_flow_order(best[1], context)
    covered = _covered(ordered)
    return PlanChoice(
        _join(ordered, context), [p.trace.episode_id for p in ordered], best[0], True, covered
    )


def _score_bound(piece: _Piece) -> float:
    """The most ``piece`` can add to a set's ``_combo_score``: every word it claims newly
    covered, the flow bonus if it types a value read elsewhere, none of the penalties. The
    search skips a set whose pieces' bounds add up to no more than the best score so far
    (thousands of sets per plan, most far below it)."""
    claimed = sum(max(0.0, weight) for weight in piece.claimed.values())
    return claimed + piece.gain_base + piece.prior + (FLOW_BONUS if piece.consumes else 0.0)


def _distinct(pieces: list[_Piece], per_app: int = PIECES_PER_APP) -> list[_Piece]:
    """The best piece of each way of working (same app, same states, same words explained,
    same values read for later, same values typed from other apps), at most ``per_app`` ways
    per app: thirty "note the temperature" runs would otherwise fill every candidate place
    and leave out the one messaging piece the task needs."""
    kept: list[_Piece] = []
    ways: set[tuple[object, ...]] = set()
    counts: dict[str, int] = {}
    for piece in pieces:
        way = (
            piece.app,
            tuple(step.node for step in piece.binding.steps),
            frozenset(piece.claimed.items()),
            tuple(piece.produces),
            # A note typing a value read elsewhere is not the plain note on the same screens.
            tuple(piece.consumes),
        )
        if way in ways or counts.get(piece.app, 0) >= per_app:
            continue
        ways.add(way)
        counts[piece.app] = counts.get(piece.app, 0) + 1
        kept.append(piece)
    return kept


def _best_per_app(pieces: list[_Piece], per_app: int = 2) -> list[_Piece]:
    """For sets of four: the best two pieces of each app (in the pieces' order), so that every
    app a four-app task needs is represented, capped to keep the search small."""
    kept: list[_Piece] = []
    counts: dict[str, int] = {}
    for piece in pieces:
        if counts.get(piece.app, 0) < per_app:
            counts[piece.app] = counts.get(piece.app, 0) + 1
            kept.append(piece)
    return kept[:CANDIDATE_PIECES_FOR_FOUR]


def _covered(pieces: Sequence[_Piece]) -> dict[str, float]:
    covered: dict[str, float] = {}
    for piece in pieces:
        for word, weight in piece.claimed.items():
            covered[word] = max(weight, covered.get(word, 0.0))
    return covered


def _combo_score(
    pieces: list[_Piece], said: Mapping[str, int], asks_for_a_field: bool,
    marked: frozenset[str] = frozenset(),
) -> float:  # fmt: skip
    """What the pieces explain of the task, less what they cost. When the task names a field
    runs read ("save the time"), a piece typing a read value is fed only by a piece reading
    that field: a note's text read elsewhere is not an event's time. ``marked``: the apps the
    task says a marker of; each one no piece works in costs as it does a single trace."""
    score = sum(_covered(pieces).values()) + sum(p.gain_base for p in pieces) + SEGMENT_COST
    score -= MISFIT_PENALTY * len(marked - {p.app for p in pieces})
    repeating = {id(piece) for piece in _repeating(pieces, said)}
    for piece in pieces:
        others = [o for o in pieces if o is not piece]
        if _new_weight(piece.claimed, _covered(others)) < 1.0:
            score -= 1.0  # a piece that explains nothing the others do not is dead weight
        if piece.answers and not any(o.consumes for o in others):
            # The task asks for the value this piece reads, and no piece types it anywhere:
            # "a note with the artist of X" is no note of the donor's text beside a song.
            score -= UNUSED_ANSWER_PENALTY
        if piece.consumes:
            fed = any(o.produces and (o.answers or not asks_for_a_field) for o in others)
            # Being fed is no reason to keep a piece that only repeats what others do: the
            # note's text emailed to Hiro does not need it texted to him as well.
            if not fed:
                score -= FLOW_BONUS
            elif id(piece) not in repeating:
                score += FLOW_BONUS
        score += piece.prior
    return score - REPEATED_VALUE_PENALTY * len(repeating)


def _repeating(pieces: Sequence[_Piece], said: Mapping[str, int]) -> list[_Piece]:
    """Pieces that only put values other pieces put too, more often than the task says them,
    and read nothing for the rest: with "send it to Hiro by email" an email to Hiro is the
    task, and a photo shared with Hiro beside it is an action nobody asked for. A piece that
    reads a value (the city typed to look up its temperature) is there for what it reads.
    A piece that puts none of the task's values and only types a value read elsewhere, which
    another piece types too, repeats that value: the first lyric line written into the note
    the task asks for does not need posting on a social app as well."""
    repeating = []
    for piece in pieces:
        if piece.produces:
            continue
        if not piece.puts:
            if piece.consumes and any(o.consumes for o in pieces if o is not piece):
                repeating.append(piece)
            continue
        others = [p.puts for p in pieces if p is not piece and p.puts & piece.puts]
        if others and all(
            1 + sum(w in puts for puts in others) > said.get(w, 1) for w in piece.puts
        ):
            repeating.append(piece)
    return repeating


def _pieces(
    context: _Context, item: RetrievedTrace, script: list[ScriptStep], rank: int
) -> list[_Piece]:
    """The segments of ``item``'s script, one per app it works in, bound and ``_weighed``. A
    script in one app is its one segment, bound already where retrieval bound it to this
    instruction (``item.binding``)."""
    trace, bound = item.trace, item.binding
    if bound is not None and bound.instruction != context.instruction:
        bound = None  # bound to the task as said, planned in its screens' forms
    produced_by: dict[str, list[TextSource]] = {}
    for step in script:
        for _, source in step.template.text_sources:
            if source.from_screen:
                produced_by.setdefault(context.app_of(source), []).append(source)
    pieces = []
    parts = segments(script)
    for part in parts:
        app = next((s.app for s in part if not s.home and s.app), None)
        if app is None:
            continue
        binding = bound if len(parts) == 1 and bound else context.bind(part, trace)
        piece = _Piece(app, binding, {}, produced_by.get(app.lower(), []), [], trace, rank)
        pieces.append(_weighed(context, piece, part))
    return pieces


def _weighed(context: _Context, piece: _Piece, part: Sequence[ScriptStep]) -> _Piece:
    """``piece``, the segment ``part`` bound, with what it explains of the task, the values it
    reads for it and types from other apps, and what it costs."""
    app, binding, trace, kb = piece.app, piece.binding, piece.trace, context.kb
    near = _context_words(trace.instruction, part, trace) & context.wanted
    named = context.named_apps([app])
    consumes = [
        source
        for step in binding.steps
        for _, source in step.screen_slots
        if context.app_of(source) != app.lower()
    ]
    asked = _asked_fields_shown(context, part, binding, piece.produces)
    produces = [*piece.produces, *asked]  # the field asked for last: it is what gets carried
    fields = {w for f in asked for w in source_words(f, kb.field_words)}
    answers = any(describes(f, context.asked, kb.field_words, kb.said_words) for f in produces)
    claimed = _weigh(binding.claimed & context.wanted, near | named | (fields & context.wanted))
    prior = PRIOR_WEIGHT * kb.app_counts.get(app, 0) / max(kb.app_counts.values(), default=1)
    puts = frozenset(w for w, weight in claimed.items() if weight >= VALUE_WEIGHT)
    penalty = _segment_penalty(context, app, named, trace)
    return _Piece(
        app, binding, claimed, produces, consumes, trace, piece.rank, penalty, prior, answers, puts
    )


def _segment_penalty(context: _Context, app: str, named: set[str], trace: Trace) -> float:
    # The donor named this app and the new task does not: its segment is likely not wanted.
    donor_words = content_words(trace.instruction)
    penalty = 1.0 if not named and _named_apps([app], context.kb.aliases, donor_words) else 0.0
    if _unmarked(app, context):
        penalty += 1.0  # every recorded use of this app says "email"; this task does not
    return penalty


def _asked_fields_shown(
    context: _Context, part: Sequence[ScriptStep], binding: Binding, produces: list[TextSource]
) -> list[TextSource]:
    """The fields the task asks for that ``part`` shows and that answer more than the ones
    its donor carried (``produces``); a segment read only for them ends where they show."""
    kb = context.kb
    shown = offered_fields(part, context.asked, kb.nodes, kb.field_words, kb.read_at)
    asked = [f for f in shown if f not in produces and _adds_to(f, produces, context)]
    if asked and not produces:
        # Read only for the field: stop where it is shown. The donor went on to buy the
        # product whose price this task only asks for.
        binding.steps = until_shown(binding.steps, asked, kb.nodes)
        still = offered_fields(binding.steps, context.asked, kb.nodes, kb.field_words, kb.read_at)
        asked = [f for f in still if f in asked]
    return asked


def _adds_to(field: TextSource, produces: Sequence[TextSource], context: _Context) -> bool:
    """Whether ``field`` answers more of the task than the fields the donor carried; once
    those answer something, only with a word the task says itself: "save the time" of an
    event is its time, though "when" would also ask for the date beside it."""
    learned = context.kb.field_words
    if not answers_more(field, produces, context.asked, learned):
        return False
    answered = {w for c in produces for w in source_words(c, learned) & context.asked}
    if not answered:
        return True
    new = (source_words(field, learned) & context.asked) - answered
    return bool(new & context.wanted)


def _new_weight(claimed: dict[str, float], covered: dict[str, float]) -> float:
    return sum(max(0.0, w - covered.get(word, 0.0)) for word, w in claimed.items())


def _context_words(old_instruction: str, part: Sequence[ScriptStep], trace: Trace) -> set[str]:
    """Words of the donor instruction next to the values this segment used: a few words
    either side and, when the donor did several things, the whole clause holding a value."""
    values = tuple(
        value
        for step in part
        for value in (
            *(
                trace.values.get(key, "")
                for key in map(step.slot_key, (slot for slot, _ in step.template.text_sources))
                if key is not None
            ),
            step.template.target_label,
        )
    )
    return set(_words_beside(old_instruction, values, tables.default()))


@functools.lru_cache(maxsize=8192)
def _words_beside(
    old_instruction: str, values: tuple[str, ...], language: tables.Language
) -> frozenset[str]:
    """``_context_words`` of the donor's values, read in ``language`` (the active one): the
    same for a segment in every plan that weighs it, so worked out once."""
    tokens = [w.lower() for w in words(old_instruction)]
    found: set[str] = set()
    for value in values:
        value_words = [w.lower() for w in words(value)]
        if not value_words:
            continue
        # The part of the donor that holds the value, whole ("text what it says to Chen").
        found |= _clause_words(old_instruction, value)
        for start in range(len(tokens) - len(value_words) + 1):
            if tokens[start : start + len(value_words)] == value_words:
                lo = max(0, start - CONTEXT_WINDOW)
                hi = start + len(value_words) + CONTEXT_WINDOW
                found |= set(tokens[lo:start]) | set(tokens[start + len(value_words) : hi])
    return frozenset(found - stopwords())


def _clause_words(instruction: str, value: str) -> set[str]:
    """The words of the donor's clause that holds ``value``, when the donor did several
    things: "text what it says to Chen" is what the messaging part of "Open the note Ideas
    and text what it says to Chen" did."""
    parts = clauses(instruction)
    if len(parts) < 2 or not value.strip():
        return set()
    holding = [p for p in parts if label_in_instruction(value, p)]
    return {w.lower() for w in words(holding[0])} if len(holding) == 1 else set()


def _data_flow_order(pieces: list[_Piece], context: _Context) -> list[_Piece]:
    """Pieces that type values read in other apps come after the pieces working in those apps;
    the rest keep the order in which the instruction mentions what they claim."""
    tokens = [w.lower() for w in words(context.instruction)]

    def first_claim(piece: _Piece) -> int:
        return min((tokens.index(w) for w in piece.claimed if w in tokens), default=len(tokens))

    ordered = sorted(pieces, key=first_claim)
    consumers = [p for p in ordered if p.consumes]
    return [p for p in ordered if p not in consumers] + consumers


def _join(pieces: list[_Piece], context: _Context) -> list[ScriptStep]:
    """Concatenate the pieces; a value read in an app the plan never visits is replaced by the
    value the earlier pieces carry (the temperature, where the donor sent a note's text), and
    so is one the task does not ask for where the carried one is (``_replaced``)."""
    steps: list[ScriptStep] = []
    carried: list[TextSource] = []
    for number, piece in enumerate(pieces):
        visited = {p.app.lower() for p in pieces[: number + 1]}
        for step in piece.binding.steps:
            if step.screen_slots and carried:
                step = _typing_carried(step, carried[-1], visited, context)
            steps.append(replace(step, segment=number))
        carried.extend(piece.produces)
    return steps


def _typing_carried(
    step: ScriptStep, carried: TextSource, visited: set[str], context: _Context
) -> ScriptStep:
    """``step`` typing the carried value where its donor's is not wanted. Where the donor's
    value was another field of a visited app, the donor's words around it went with that
    field ("Fire Hearts is by {artist}"): the carried value is typed alone."""
    slots, swapped = [], []
    for slot, source in step.screen_slots:
        if _replaced(source, carried, visited, context):
            slots.append((slot, carried))
            if context.app_of(source) in visited:
                swapped.append(slot)
        else:
            slots.append((slot, source))
    text = step.text
    if swapped:
        text = " ".join("{" + slot + "}" for slot in swapped)
        slots = [(slot, source) for slot, source in slots if slot in swapped]
    return replace(step, text=text, screen_slots=tuple(slots), fallback_source=carried)


def _replaced(
    source: TextSource, carried: TextSource, visited: set[str], context: _Context
) -> bool:
    """Whether a piece types the value the earlier pieces carry in place of the one its
    donor read: that one's app is not visited, or the task asks for the carried field and
    not for it (the donor texted a song's artist; the task texts the lyrics' first lines,
    which the player segment reads)."""
    if context.app_of(source) not in visited:
        return True
    asked, learned, said = context.asked, context.kb.field_words, context.kb.said_words
    return describes(carried, asked, learned, said) and not describes(source, asked, learned, said)
