"""Sub-workflows: the reusable pieces task plans are made of.

Each returns a list of expert steps. Templates compose them, and the recombination templates
put the same pieces in new orders and app pairings (weather -> message where the logs only hold
weather -> note and note -> message), which is what lets held-out templates test stitching.
"""

from __future__ import annotations

from guigraph.envs.simphone.expert import Expert, Step, enter, fill, on_screen, open_app, tap, when
from guigraph.envs.simphone.world import World

# Reading values (the expert reads what the screen would show) --------------------------------


def temperature(world: World, city: str) -> str:
    return f"{world.catalog.weather[city].temperature}°C"


def price(world: World, product: str) -> str:
    return world.catalog.product_named(product).price


def first_lyric(world: World, song: str) -> str:
    return world.catalog.song_titled(song).lyrics[0]


def note_body(world: World, title: str) -> str:
    return next(n.body for n in world.data.notes if n.title == title)


def event_time(world: World, title: str) -> str:
    return next(e.time for e in world.data.events if e.title == title)


# Weather, notes, calendar, mail -----------------------------------------------------------
def check_weather(city: str) -> list[Step]:
    return [open_app("weather"), tap("open_search"), fill("city_query", city), tap(f"city_{city}")]


def create_note(title: str, body: str) -> list[Step]:
    return [
        open_app("notes"),
        tap("new_note"),
        fill("note_title", title),
        fill("note_body", body),
        tap("save"),
    ]


def open_note(world: World, title: str) -> list[Step]:
    index = next(i for i, n in enumerate(world.data.notes) if n.title == title)
    return [open_app("notes"), tap(f"note_{index}")]


def delete_note(world: World, title: str) -> list[Step]:
    index = next(i for i, n in enumerate(world.data.notes) if n.title == title)
    return [open_app("notes"), tap(f"note_{index}", long=True), tap("confirm")]


def create_event(title: str, date: str, time: str) -> list[Step]:
    return [
        open_app("calendar"),
        tap("add_event"),
        fill("event_title", title),
        fill("event_date", date),
        fill("event_time", time),
        tap("save"),
    ]


def open_event(world: World, title: str) -> list[Step]:
    index = next(i for i, e in enumerate(world.data.events) if e.title == title)
    return [open_app("calendar"), tap(f"event_{index}")]


def create_reminder(text: str) -> list[Step]:
    return [
        open_app("calendar"),
        tap("open_reminders"),
        tap("add_reminder"),
        fill("reminder", text),
        tap("save"),
    ]


def send_mail(to: str, subject: str, body: str) -> list[Step]:
    return [
        open_app("mail"),
        tap("compose"),
        fill("mail_to", to),
        fill("mail_subject", subject),
        fill("mail_body", body),
        tap("send"),
    ]


# Clock and settings -----------------------------------------------------------------------
def _clock_tab(tab: str) -> Step:
    return when(lambda ex: ex.view().identity != f"clock.{tab}", tap(f"tab_{tab}"))


def set_alarm(time: str, label: str) -> list[Step]:
    return [
        open_app("clock"),
        _clock_tab("alarms"),
        tap("add_alarm"),
        fill("alarm_time", time),
        fill("alarm_label", label),
        tap("save"),
    ]


def start_timer(minutes: str) -> list[Step]:
    return [
        open_app("clock"),
        _clock_tab("timer"),
        when(lambda ex: ex.find("stop_timer") is not None, tap("stop_timer")),
        fill("minutes", minutes),
        tap("start_timer"),
    ]


def add_world_clock(city: str) -> list[Step]:
    return [
        open_app("clock"),
        _clock_tab("world"),
        tap("add_city"),
        fill("city_query", city),
        tap(f"city_{city}"),
    ]


def set_switch(section: str, switch: str, setting: str, want: bool) -> list[Step]:
    def differs(ex: Expert) -> bool:
        return bool(ex.world.data.settings[setting]) != want

    return [open_app("settings"), tap(section), when(differs, tap(switch))]


def set_brightness(level: str) -> list[Step]:
    return [open_app("settings"), tap("open_display"), tap(f"brightness_{level}")]


# Shopping and browsing --------------------------------------------------------------------
def find_product(world: World, product: str) -> list[Step]:
    pid = world.catalog.product_named(product).pid
    return [open_app("shop"), fill("search", product), enter(), tap(f"product_{pid}")]


def add_to_cart() -> list[Step]:
    return [tap("add_to_cart")]


def checkout() -> list[Step]:
    return [tap("open_cart"), tap("checkout"), tap("place_order")]


def open_article(world: World, topic: str, site: str) -> list[Step]:
    aid = next(a.aid for a in world.catalog.articles if a.topic == topic and a.site == site)
    return [open_app("browser"), fill("url", topic), enter(), tap(f"article_{aid}")]


# Media ------------------------------------------------------------------------------------
def play_song(world: World, song: str) -> list[Step]:
    sid = world.catalog.song_titled(song).sid
    return [
        open_app("music"),
        tap("open_search"),
        fill("song_query", song),
        tap(f"song_{sid}"),
        when(lambda ex: ex.world.data.now_playing != sid, tap("play_pause")),
    ]


def add_song_to_playlist(playlist: str) -> list[Step]:
    return [tap("add_to_playlist"), tap(f"playlist_{playlist}")]


def watch_video(world: World, title: str) -> list[Step]:
    vid = next(v.vid for v in world.catalog.videos if v.title == title)
    query = title.split(" ")[0]
    return [open_app("video"), fill("video_query", query), enter(), tap(f"video_{vid}")]


def share_to(contact: str) -> list[Step]:
    return [tap("share"), tap(f"share_{contact}")]


def take_photo() -> list[Step]:
    return [
        open_app("camera"),
        tap("shutter"),
        when(on_screen("camera.popup_permission"), tap("allow"), tap("shutter")),
    ]


def open_latest_photo(world: World, extra: int = 0) -> list[Step]:
    """The newest photo; ``extra`` counts photos the plan takes before it gets here."""
    index = len(world.data.photos) - 1 + extra
    return [open_app("gallery"), tap(f"photo_{index}")]


# Messaging --------------------------------------------------------------------------------
def send_message(world: World, contact: str, text: str) -> list[Step]:
    if contact in world.data.chats:
        reach = [tap(f"chat_{contact}")]
    else:
        reach = [tap("new_chat"), fill("to_query", contact), tap(f"contact_{contact}")]
    return [open_app("messages"), *reach, fill("compose", text), tap("send")]


def post(text: str) -> list[Step]:
    return [open_app("social"), tap("compose_post"), fill("post_text", text), tap("post")]


def last_message(world: World, contact: str) -> str:
    """The last message ``contact`` sent (not the replies)."""
    incoming = [line for line in world.data.chats[contact] if not line.startswith("Me: ")]
    return incoming[-1].split(": ", 1)[1]


def open_chat(contact: str) -> list[Step]:
    return [open_app("messages"), tap(f"chat_{contact}")]
