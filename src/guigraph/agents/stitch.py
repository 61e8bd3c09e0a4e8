"""Choosing what to follow: one recorded trace, or segments of several stitched together.

Every option is bound to the new instruction and scored by how much of the instruction it
explains (values it found a place for, words its donor instructions share, apps named) minus
the values it needs but cannot fill. A recorded template usually wins as one trace; a task
never recorded ("tell Greta the temperature in Denver") is covered by the weather segment of
one trace and the messaging segment of another. Segments are ordered by data flow: one that
types a value read off another app's screen comes after the segment that reads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from guigraph.agents.script import (
    Binding,
    ScriptStep,
    app_sequence,
    bind,
    segments,
    trace_script,
)
from guigraph.retrieval.slots import words
from guigraph.retrieval.values import ValueIndex

if TYPE_CHECKING:
    from guigraph.graph.records import Edge, Node, Trace
    from guigraph.retrieval.context import RetrievedTrace

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "from",
        "it",
        "its",
        "my",
        "me",
        "i",
        "is",
        "are",
        "be",
        "this",
        "that",
        "then",
        "up",
        "down",
        "into",
        "under",
        "over",
        "as",
        "please",
        "can",
        "you",
        "your",
        "what",
        "how",
        "who",
        "which",
    ]
)
UNFILLED_PENALTY = 2.0
SEGMENT_COST = 0.5
CONTEXT_WINDOW = 3


@dataclass
class PlanChoice:
    steps: list[ScriptStep]
    donors: list[str]
    score: float
    stitched: bool
    claimed: set[str] = field(default_factory=set)


def content_words(text: str) -> set[str]:
    return {w.lower() for w in words(text)} - STOPWORDS


def source_app(source: str) -> str:
    """``screen:weather:id/temp`` -> ``weather``."""
    return source.removeprefix("screen:").split(":", 1)[0]


def choose_plan(
    instruction: str,
    retrieved: Sequence[RetrievedTrace],
    edges: Mapping[int, Edge],
    nodes: Mapping[int, Node],
    values: ValueIndex,
    aliases: Mapping[str, str],
    allow_stitching: bool = True,
) -> PlanChoice | None:
    if not retrieved:
        return None
    wanted = content_words(instruction)
    scripts = {r.trace.episode_id: trace_script(r.trace, edges, nodes) for r in retrieved}
    options = [
        _single(r, scripts[r.trace.episode_id], instruction, wanted, values, aliases)
        for r in retrieved[:3]
    ]
    if allow_stitching:
        stitched = _stitch(instruction, wanted, retrieved, scripts, values, aliases)
        if stitched is not None:
            options.append(stitched)
    return max(options, key=lambda o: o.score)


def _single(
    item: RetrievedTrace, script: list[ScriptStep], instruction: str, wanted: set[str],
    values: ValueIndex, aliases: Mapping[str, str],
) -> PlanChoice:  # fmt: skip
    binding = bind(script, item.trace, instruction, values)
    claimed = (binding.claimed | content_words(item.trace.instruction)) & wanted
    claimed |= _named_apps(app_sequence(binding.steps), aliases, wanted)
    score = len(claimed) - UNFILLED_PENALTY * binding.unfilled + item.score
    return PlanChoice(binding.steps, [item.trace.episode_id], score, False, claimed)


def _named_apps(apps: Sequence[str], aliases: Mapping[str, str], wanted: set[str]) -> set[str]:
    named = set()
    for alias, app in aliases.items():
        if app in apps:
            named |= {
                w
                for w in content_words(alias)
                if w in wanted or w + "s" in wanted or w.rstrip("s") in wanted
            }
    return named


@dataclass
class _Piece:
    app: str
    binding: Binding
    claimed: set[str]
    produces: list[str]
    trace: Trace
    rank: int

    @property
    def consumes(self) -> list[str]:
        return [
            source
            for s in self.binding.steps
            for _, source in s.screen_slots
            if source_app(source) != self.app
        ]

    @property
    def gain_base(self) -> float:
        return -UNFILLED_PENALTY * self.binding.unfilled - SEGMENT_COST


def _stitch(
    instruction: str, wanted: set[str], retrieved: Sequence[RetrievedTrace],
    scripts: Mapping[str, list[ScriptStep]], values: ValueIndex, aliases: Mapping[str, str],
) -> PlanChoice | None:  # fmt: skip
    pieces = [
        piece
        for rank, item in enumerate(retrieved)
        for piece in _pieces(
            item.trace, scripts[item.trace.episode_id], instruction, wanted, values, aliases, rank
        )
    ]
    chosen: list[_Piece] = []
    covered: set[str] = set()
    while True:
        used_apps = {p.app for p in chosen}
        scored = [
            (len(p.claimed - covered) + p.gain_base, -p.rank, i)
            for i, p in enumerate(pieces)
            if p.app not in used_apps
        ]
        if not scored:
            break
        gain, _, best = max(scored)
        if gain < 1.0:
            break
        chosen.append(pieces[best])
        covered |= pieces[best].claimed
    if len(chosen) < 2:
        return None
    ordered = _data_flow_order(chosen, instruction)
    steps = _join(ordered)
    score = len(covered) + sum(p.gain_base for p in ordered) + SEGMENT_COST
    return PlanChoice(steps, [p.trace.episode_id for p in ordered], score, True, covered)


def _pieces(
    trace: Trace, script: list[ScriptStep], instruction: str, wanted: set[str],
    values: ValueIndex, aliases: Mapping[str, str], rank: int,
) -> list[_Piece]:  # fmt: skip
    produced_by: dict[str, list[str]] = {}
    for step in script:
        for _, source in step.template.text_sources:
            if source.startswith("screen:"):
                produced_by.setdefault(source_app(source), []).append(source)
    pieces = []
    for part in segments(script):
        app = next((s.app for s in part if not s.home and s.app), None)
        if app is None:
            continue
        binding = bind(part, trace, instruction, values)
        near = _context_words(trace.instruction, part, trace) & wanted
        claimed = binding.claimed | near | _named_apps([app], aliases, wanted)
        pieces.append(_Piece(app, binding, claimed, produced_by.get(app, []), trace, rank))
    return pieces


def _context_words(old_instruction: str, part: Sequence[ScriptStep], trace: Trace) -> set[str]:
    """Words of the donor instruction next to the values this segment used."""
    tokens = [w.lower() for w in words(old_instruction)]
    found: set[str] = set()
    for step in part:
        recorded = [
            trace.values.get(f"{step.slot_key}:{slot}", "")
            for slot, _ in step.template.text_sources
        ]
        for value in (*recorded, step.template.target_label):
            value_words = [w.lower() for w in words(value)]
            if not value_words:
                continue
            for start in range(len(tokens) - len(value_words) + 1):
                if tokens[start : start + len(value_words)] == value_words:
                    lo, hi = (
                        max(0, start - CONTEXT_WINDOW),
                        start + len(value_words) + CONTEXT_WINDOW,
                    )
                    found |= set(tokens[lo:start]) | set(tokens[start + len(value_words) : hi])
    return found - STOPWORDS


def _data_flow_order(pieces: list[_Piece], instruction: str) -> list[_Piece]:
    """Readers of other apps' values after the pieces that read those apps; else as claimed."""
    tokens = [w.lower() for w in words(instruction)]

    def first_claim(piece: _Piece) -> int:
        return min((tokens.index(w) for w in piece.claimed if w in tokens), default=len(tokens))

    ordered = sorted(pieces, key=first_claim)
    consumers = [
        p for p in ordered if p.consumes and not any(source_app(s) == p.app for s in p.consumes)
    ]
    return [p for p in ordered if p not in consumers] + consumers


def _join(pieces: list[_Piece]) -> list[ScriptStep]:
    steps: list[ScriptStep] = []
    carried: list[str] = []
    for number, piece in enumerate(pieces):
        earlier_apps = {p.app for p in pieces[:number]}
        for step in piece.binding.steps:
            if step.screen_slots:
                fallback = carried[-1] if carried else ""
                known_apps = earlier_apps | {piece.app}
                slots = tuple(
                    (slot, fallback if fallback and source_app(src) not in known_apps else src)
                    for slot, src in step.screen_slots
                )
                step = replace(step, screen_slots=slots, fallback_source=fallback)
            steps.append(replace(step, segment=number))
        carried.extend(piece.produces)
    return steps
