"""Task templates: parameters, phrasings, a plan for the expert, and a state checker.

Checkers read the phone's state (the note holds the right temperature, the cart the right
item, the message went to the right contact), never the actions. ``recombines`` names the
templates whose sub-workflows a template puts together in a new order or app pairing.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from guigraph.envs.simphone.apps.info import home_city
from guigraph.envs.simphone.content import CITIES
from guigraph.envs.simphone.expert import Step
from guigraph.envs.simphone.world import Data, World

Params = dict[str, str]


@dataclass(frozen=True)
class Template:
    template_id: str
    category: str
    apps: tuple[str, ...]
    phrasings: tuple[str, ...]
    sample: Callable[[random.Random, World], Params]
    plan: Callable[[Params, World], list[Step]]
    check: Callable[[Params, World], bool]
    recombines: tuple[str, ...] = ()


TEMPLATES: dict[str, Template] = {}


def template(
    template_id: str,
    category: str,
    apps: tuple[str, ...],
    phrasings: tuple[str, ...],
    sample: Callable[[random.Random, World], Params],
    plan: Callable[[Params, World], list[Step]],
    check: Callable[[Params, World], bool],
    recombines: tuple[str, ...] = (),
) -> None:
    TEMPLATES[template_id] = Template(
        template_id, category, apps, phrasings, sample, plan, check, recombines
    )


# Helpers for checkers ------------------------------------------------------------------------
def has_number(text: str, value: str) -> bool:
    """``value``'s number appears in ``text`` as a whole number (``21`` not inside ``210``)."""
    number = re.search(r"-?\d+(\.\d+)?", value)
    if number is None:
        return False
    pattern = rf"(?<![\d.]){re.escape(number.group())}(?![\d])"
    return re.search(pattern, text) is not None


def sent(world: World, contact: str, needle: str) -> bool:
    return any(
        line.startswith("Me: ") and needle.lower() in line.lower()
        for line in world.data.chats.get(contact, [])
    )


def sent_number(world: World, contact: str, value: str) -> bool:
    return any(
        line.startswith("Me: ") and has_number(line, value)
        for line in world.data.chats.get(contact, [])
    )


def at_start(world: World) -> Data:
    """The content the task was posed about, as the world's seed made it: the agent may have
    deleted or edited that note or event since, and the case must still be scored."""
    return World(world.seed).data


def sent_note(world: World, contact: str, title: str) -> bool:
    """``contact`` got the body the note ``title`` had when the task began."""
    body = next((n.body for n in at_start(world).notes if n.title == title), None)
    return body is not None and sent(world, contact, body)


def alarm_at_event(world: World, title: str) -> bool:
    """An alarm labelled ``title`` at the time the event ``title`` had when the task began."""
    time = next((e.time for e in at_start(world).events if e.title == title), None)
    return time is not None and any(
        a.time == hhmm(time) and a.label == title for a in world.data.alarms
    )


def note_with(world: World, title: str) -> str | None:
    return next((n.body for n in world.data.notes if n.title.lower() == title.lower()), None)


def hhmm(time: str) -> str:
    hours, minutes = time.split(":")
    return f"{int(hours):02d}:{minutes}"


# Samplers -----------------------------------------------------------------------------------
NOTE_TITLES = ("Trip plan", "Weekend", "Shopping", "To do", "Reading list", "Work")
LABELS = ("Gym", "Meds", "Standup", "Call mom", "Laundry", "Bus")
MESSAGES = ("Running late", "See you at 7", "Happy birthday!", "Call me back", "On my way")
POSTS = ("Lovely morning run", "Trying a new recipe", "Best coffee in town", "Back from holiday")
REMINDERS = ("water the plants", "pay rent", "buy a gift", "renew passport", "book a table")
EVENTS = ("Team lunch", "Yoga class", "Doctor visit", "Book club", "Piano lesson")


def _time(rng: random.Random) -> str:
    return f"{rng.randint(5, 22):02d}:{rng.choice(('00', '15', '30', '45'))}"


def _contact(rng: random.Random, world: World) -> str:
    return rng.choice(world.catalog.contacts)


def _city(rng: random.Random, world: World) -> str:
    return rng.choice([c for c in CITIES if c != home_city(world)])


def _product(rng: random.Random, world: World) -> str:
    return rng.choice(world.catalog.products).name


def _song(rng: random.Random, world: World) -> str:
    return rng.choice(world.catalog.songs).title


def _article(rng: random.Random, world: World) -> Params:
    article = rng.choice(world.catalog.articles)
    return {"topic": article.topic, "site": article.site, "title": article.title}


def _aid(world: World, p: Params) -> int:
    return next(a.aid for a in world.catalog.articles if a.title == p["title"])


def _pid(world: World, p: Params) -> int:
    return world.catalog.product_named(p["product"]).pid


def _sid(world: World, p: Params) -> int:
    return world.catalog.song_titled(p["song"]).sid


def _video(rng: random.Random, world: World) -> str:
    return rng.choice(world.catalog.videos).title


def _vid(world: World, p: Params) -> int:
    return next(v.vid for v in world.catalog.videos if v.title == p["video"])


def _switch(setting: str) -> Callable[[random.Random, World], Params]:
    return lambda rng, w: {"state": "off" if w.data.settings[setting] else "on"}


def _old_note(rng: random.Random, world: World) -> str:
    return rng.choice(world.data.notes).title
