"""The phone's whole state: navigation (which app, which screen, what is typed) and app data.

Screens are pure functions of this state; taps and keys change it only through the methods
here, so the checkers of the task suite can read the same state the screens show.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from guigraph.envs.simphone.content import Catalog, make_catalog

HOME = "home"


@dataclass
class Entry:
    """One screen on an app's back stack, with what is typed, focused and scrolled on it."""

    screen: str
    params: dict[str, Any] = field(default_factory=dict)
    scroll: int = 0
    fields: dict[str, str] = field(default_factory=dict)
    focus: str | None = None
    popup: str | None = None
    popup_params: dict[str, Any] = field(default_factory=dict)
    loading_until: int = -1

    @property
    def app(self) -> str:
        return self.screen.split(".", 1)[0]


@dataclass
class Note:
    title: str
    body: str


@dataclass
class Event:
    title: str
    date: str
    time: str


@dataclass
class Alarm:
    time: str
    label: str
    on: bool = True


@dataclass
class Data:
    """What the apps store. Checkers of the task suite read these fields."""

    notes: list[Note] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    reminders: list[str] = field(default_factory=list)
    alarms: list[Alarm] = field(default_factory=list)
    world_clocks: list[str] = field(default_factory=list)
    timer: str = ""
    cart: list[int] = field(default_factory=list)
    orders: list[list[int]] = field(default_factory=list)
    wishlist: list[int] = field(default_factory=list)
    chats: dict[str, list[str]] = field(default_factory=dict)
    posts: list[str] = field(default_factory=list)
    emails: list[tuple[str, str, str]] = field(default_factory=list)
    photos: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    playlists: dict[str, list[int]] = field(default_factory=dict)
    now_playing: int | None = None
    lyrics_viewed: list[int] = field(default_factory=list)
    liked_songs: list[int] = field(default_factory=list)
    watched: list[int] = field(default_factory=list)
    liked_videos: list[int] = field(default_factory=list)
    history: list[int] = field(default_factory=list)
    bookmarks: list[int] = field(default_factory=list)
    weather_viewed: list[str] = field(default_factory=list)
    camera_allowed: bool = False
    rated: list[str] = field(default_factory=list)


def initial_data(rng: random.Random, catalog: Catalog) -> Data:
    contacts = list(catalog.contacts)
    data = Data()
    data.notes = [
        Note("Groceries", "milk, eggs, bread"),
        Note(f"Call {contacts[0]}", "about the weekend"),
        Note("Ideas", rng.choice(("paint the hall", "learn chess", "plant tomatoes"))),
    ]
    data.events = [Event("Dentist", "Jun 12", f"{rng.randint(8, 11)}:30")]
    data.alarms = [Alarm("07:00", "Wake up", rng.random() < 0.5)]
    data.world_clocks = ["London"]
    incoming = (
        "Dinner at 8?",
        "The code is 4417",
        "Meet at the station",
        "Bring the charger",
        "Gate B12 at 9:40",
        "Call me after lunch",
    )
    data.chats = {c: [f"{c}: {rng.choice(incoming)}"] for c in contacts[:4]}
    data.photos = [f"IMG_{rng.randint(1000, 9999)}" for _ in range(5)]
    data.settings = {
        "wifi": rng.random() < 0.6,
        "bluetooth": rng.random() < 0.4,
        "airplane": False,
        "dark_mode": rng.random() < 0.3,
        "brightness": rng.choice((30, 50, 70)),
        "volume": rng.choice((20, 40, 60)),
        "do_not_disturb": False,
        "battery_saver": False,
        "location": rng.random() < 0.5,
    }
    data.playlists = {"Favorites": [0, 3], "Workout": [5]}
    return data


class World:
    """Navigation plus data. ``tick`` advances once per action (loading screens use it)."""

    def __init__(
        self, seed: int, versions: dict[str, int] | None = None, popup_rate: float = 0.1
    ) -> None:
        self.seed = seed
        content_rng = random.Random(seed)
        self.catalog = make_catalog(content_rng)
        self.data = initial_data(content_rng, self.catalog)
        # Pop-ups draw from their own stream so that content does not depend on them.
        self.popup_rng = random.Random(seed * 7919 + 17)
        self.popup_rate = popup_rate
        self.versions = dict(versions or {})
        self.app = HOME
        self.stacks: dict[str, list[Entry]] = {}
        self.recents: list[str] = []
        self.showing_recents = False
        self.tick = 0
        self.last_message = ""

    # Navigation -------------------------------------------------------------------------
    def version(self, app: str) -> int:
        return self.versions.get(app, 1)

    @property
    def entry(self) -> Entry | None:
        if self.app == HOME:
            return None
        return self.stacks[self.app][-1]

    def launch(self, app: str, root: str) -> None:
        """Open ``app`` the way a launcher does: its back stack is kept if it is running."""
        self.showing_recents = False
        if app not in self.stacks:
            self.stacks[app] = [Entry(root)]
            if self.popup_rng.random() < self.popup_rate:
                self.stacks[app][-1].popup = f"{app}.popup_rate"
        if app in self.recents:
            self.recents.remove(app)
        self.recents.insert(0, app)
        self.app = app

    def go_home(self) -> None:
        self.showing_recents = False
        self.app = HOME

    def push(self, screen: str, *, loading: bool = False, **params: Any) -> None:
        entry = Entry(screen, dict(params))
        if loading:
            entry.loading_until = self.tick + 2
        self.stacks[self.app].append(entry)

    def replace(self, screen: str, **params: Any) -> None:
        self.stacks[self.app][-1] = Entry(screen, dict(params))

    def pop(self) -> None:
        """Leave the current screen; leaving an app's root goes home, as Android's back does."""
        stack = self.stacks[self.app]
        if len(stack) > 1:
            stack.pop()
        else:
            del self.stacks[self.app]
            self.app = HOME

    def pop_to(self, screen: str) -> None:
        stack = self.stacks[self.app]
        while len(stack) > 1 and stack[-1].screen != screen:
            stack.pop()

    def show_popup(self, name: str, **params: Any) -> None:
        entry = self.entry
        if entry is not None:
            entry.popup = name
            entry.popup_params = dict(params)

    def close_popup(self) -> None:
        entry = self.entry
        if entry is not None:
            entry.popup = None
            entry.popup_params = {}

    def field(self, key: str) -> str:
        entry = self.entry
        return entry.fields.get(key, "") if entry else ""

    def set_field(self, key: str, value: str) -> None:
        if self.entry is not None:
            self.entry.fields[key] = value

    def toast(self, text: str) -> None:
        """A short confirmation the next screen shows (like an Android toast)."""
        self.last_message = text

    def is_loading(self) -> bool:
        """A screen opened with ``loading`` shows a spinner until one more action has passed."""
        entry = self.entry
        return entry is not None and entry.loading_until > self.tick
