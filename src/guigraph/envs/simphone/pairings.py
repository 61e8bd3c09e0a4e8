"""New pairings of recorded single-app workflows, for the generalization benchmark.

A *reading* is a sub-workflow that finds a value in one app (a city's temperature, a product's
price, a song's artist, a note's text...); a *use* is one that puts a value into another app (a
message, a note, an e-mail, a post). The suite records a few reading-use pairs and holds out a
few more for the demo; the benchmark (``generalize.toml``) asks for others. Each pairing is a
:class:`~guigraph.envs.simphone.templates.Template` whose checker is composed from the use's
state check and the reading's value, so success is the phone's verdict as for any template.
The expert's plan is composed the same way: tests run it to show every pairing can be done.

Pairings live in :data:`PAIRINGS`, apart from the suite's ``TEMPLATES``: nothing records them,
and the demo does not evaluate them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from guigraph.envs.simphone import fragments as f
from guigraph.envs.simphone.expert import Step, tap
from guigraph.envs.simphone.templates import (
    NOTE_TITLES,
    Params,
    Template,
    _article,
    _city,
    _contact,
    _old_note,
    _product,
    _song,
    at_start,
    has_number,
    hhmm,
    note_with,
)
from guigraph.envs.simphone.world import World

MULTI = "Multi_Apps"

#: Whether a written text holds a value: (text, value) -> bool.
Matcher = Callable[[str, str], bool]


def holds_text(text: str, value: str) -> bool:
    return value.strip().lower() in text.lower()


def holds_every_line(text: str, value: str) -> bool:
    """A value of several lines is there when each line is, in any layout (one per line, or
    run together on one)."""
    return all(holds_text(text, line) for line in value.splitlines() if line.strip())


def holds_time(text: str, value: str) -> bool:
    """``07:30`` is there as ``07:30`` or ``7:30``."""
    return any(hhmm(found) == hhmm(value) for found in re.findall(r"\d{1,2}:\d{2}", text))


@dataclass(frozen=True)
class Reading:
    """Finding a value in one app: its parameters, the sub-workflow, the value it finds."""

    name: str
    app: str
    sample: Callable[[random.Random, World], Params]
    plan: Callable[[Params, World], list[Step]]
    #: The value as the world had it when the task began (the agent may change the world).
    value: Callable[[Params, World], str]
    matches: Matcher


@dataclass(frozen=True)
class Use:
    """Putting a value into another app: its parameters, the sub-workflow, and the check on
    the phone's state that the value arrived."""

    name: str
    app: str
    sample: Callable[[random.Random, World], Params]
    plan: Callable[[Params, World, str], list[Step]]
    #: (params, world, value, matcher) -> whether the value is where the use puts it.
    holds: Callable[[Params, World, str, Matcher], bool]


def _headline(p: Params, w: World) -> str:
    return next(
        a.title for a in w.catalog.articles if a.topic == p["topic"] and a.site == p["site"]
    )


def _last_message(p: Params, w: World) -> str:
    return f.last_message(World(w.seed), p["sender"])


def _note_body(p: Params, w: World) -> str:
    return next(n.body for n in at_start(w).notes if n.title == p["note"])


def _event_time(p: Params, w: World) -> str:
    return next(e.time for e in at_start(w).events if e.title == p["event"])


def _lyrics(p: Params, w: World, lines: int) -> str:
    return "\n".join(w.catalog.song_titled(p["song"]).lyrics[:lines])


READINGS: dict[str, Reading] = {
    r.name: r
    for r in (
        Reading(
            "temperature", "Weather",
            lambda r, w: {"city": _city(r, w)},
            lambda p, w: f.check_weather(p["city"]),
            lambda p, w: f.temperature(w, p["city"]),
            has_number,
        ),
        Reading(
            "price", "ShopMall",
            lambda r, w: {"product": _product(r, w)},
            lambda p, w: f.find_product(w, p["product"]),
            lambda p, w: f.price(w, p["product"]),
            has_number,
        ),
        Reading(
            "artist", "Tunes",
            lambda r, w: {"song": _song(r, w)},
            lambda p, w: f.play_song(w, p["song"]),
            lambda p, w: w.catalog.song_titled(p["song"]).artist,
            holds_text,
        ),
        Reading(
            "first_lyric", "Tunes",
            lambda r, w: {"song": _song(r, w)},
            lambda p, w: [*f.play_song(w, p["song"]), tap("open_lyrics")],
            lambda p, w: _lyrics(p, w, 1),
            holds_text,
        ),
        Reading(
            "first_two_lyrics", "Tunes",
            lambda r, w: {"song": _song(r, w)},
            lambda p, w: [*f.play_song(w, p["song"]), tap("open_lyrics")],
            lambda p, w: _lyrics(p, w, 2),
            holds_every_line,
        ),
        Reading(
            "headline", "Browser",
            lambda r, w: {k: v for k, v in _article(r, w).items() if k != "title"},
            lambda p, w: f.open_article(w, p["topic"], p["site"]),
            _headline,
            holds_text,
        ),
        Reading(
            "note_body", "Notes",
            lambda r, w: {"note": _old_note(r, w)},
            lambda p, w: f.open_note(w, p["note"]),
            _note_body,
            holds_text,
        ),
        Reading(
            "event_time", "Calendar",
            lambda r, w: {"event": r.choice(w.data.events).title},
            lambda p, w: f.open_event(w, p["event"]),
            _event_time,
            holds_time,
        ),
        Reading(
            "last_message", "Messages",
            lambda r, w: {"sender": r.choice(sorted(w.data.chats))},
            lambda p, w: f.open_chat(p["sender"]),
            _last_message,
            holds_text,
        ),
    )
}  # fmt: skip


def _mailed(p: Params, w: World, value: str, matches: Matcher) -> bool:
    return any(
        to == p["contact"] and (matches(subject, value) or matches(body, value))
        for to, subject, body in w.data.emails
    )


def _messaged(p: Params, w: World, value: str, matches: Matcher) -> bool:
    return any(
        line.startswith("Me: ") and matches(line, value)
        for line in w.data.chats.get(p["contact"], [])
    )


USES: dict[str, Use] = {
    u.name: u
    for u in (
        Use(
            "message", "Messages",
            lambda r, w: {"contact": _contact(r, w)},
            lambda p, w, value: f.send_message(w, p["contact"], value),
            _messaged,
        ),
        Use(
            "note", "Notes",
            lambda r, w: {"title": r.choice(NOTE_TITLES)},
            lambda p, w, value: f.create_note(p["title"], value),
            lambda p, w, value, matches: matches(note_with(w, p["title"]) or "", value),
        ),
        Use(
            "mail", "Mail",
            lambda r, w: {"contact": _contact(r, w)},
            lambda p, w, value: f.send_mail(p["contact"], value, value),
            _mailed,
        ),
        Use(
            "post", "Chirp",
            lambda r, w: {},
            lambda p, w, value: f.post(value),
            lambda p, w, value, matches: any(matches(post, value) for post in w.data.posts),
        ),
    )
}  # fmt: skip


#: The pairing templates, by id (``pair.<pairing id>``); filled from ``generalize.toml``.
PAIRINGS: dict[str, Template] = {}


def pairing_template(
    pairing_id: str, reading: Reading, use: Use, wordings: tuple[str, ...]
) -> Template:
    """The template of one pairing: the reading's plan then the use's, judged by the use's
    check on the reading's value."""

    def sample(rng: random.Random, world: World) -> Params:
        return {**reading.sample(rng, world), **use.sample(rng, world)}

    def plan(p: Params, world: World) -> list[Step]:
        return [*reading.plan(p, world), *use.plan(p, world, reading.value(p, world))]

    def check(p: Params, world: World) -> bool:
        return use.holds(p, world, reading.value(p, world), reading.matches)

    return Template(
        f"pair.{pairing_id}",
        MULTI,
        tuple(dict.fromkeys((reading.app, use.app))),
        wordings,
        sample,
        plan,
        check,
        recombines=(),
    )
