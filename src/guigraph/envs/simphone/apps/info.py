"""Notes (two versions), Weather and Mail."""

from __future__ import annotations

from guigraph.envs.simphone.content import CITIES
from guigraph.envs.simphone.widgets import (
    Handler,
    Popup,
    Screen,
    W,
    app,
    button,
    go,
    item,
    nav_item,
    popup,
    screen,
    text_input,
)
from guigraph.envs.simphone.world import Entry, Note, World

app("notes", "Notes", "notes.list", (245, 180, 0))
app("weather", "Weather", "weather.home", (3, 155, 229))
app("mail", "Mail", "mail.inbox", (217, 48, 37))


# Notes ------------------------------------------------------------------------------------
def _open_note(index: int | None) -> Handler:
    def handler(world: World) -> None:
        world.push("notes.edit", index=-1 if index is None else index)
        if index is not None:
            note = world.data.notes[index]
            world.set_field("note_title", note.title)
            world.set_field("note_body", note.body)

    return handler


def _ask_delete(index: int) -> Handler:
    return lambda world: world.show_popup("notes.popup_delete", index=index)


def _note_items(world: World, indices: list[int]) -> list[W]:
    notes = world.data.notes
    return [
        W(
            "item",
            notes[i].title,
            key=f"note_{i}",
            sub=notes[i].body,
            tap=_open_note(i),
            long=_ask_delete(i),
            nav=True,
        )
        for i in indices
    ]


@screen("notes.list")
def notes_list(world: World, entry: Entry) -> Screen:
    v2 = world.version("notes") == 2
    order = list(range(len(world.data.notes)))
    body = _note_items(world, order[::-1] if v2 else order) or [W("text", "No notes")]
    search = W("button", "Search", key="open_search", tap=go("notes.search"), nav=True)
    new = W("button", "New", key="new_note", tap=_open_note(None), nav=True)
    if v2:
        return Screen("My notes", body=body, actions=[search, new], up=False)
    fab = W("button", "+", key="new_note", tap=_open_note(None), nav=True)
    return Screen("Notes", body=body, actions=[search], fab=fab, up=False)


def _save_note(world: World) -> None:
    entry = world.entry
    assert entry is not None
    title, body = world.field("note_title").strip(), world.field("note_body").strip()
    if not title and not body:
        world.pop()
        return
    index = int(entry.params["index"])
    note = Note(title or body[:20], body)
    if index < 0:
        world.data.notes.append(note)
    else:
        world.data.notes[index] = note
    world.pop()


@screen("notes.edit")
def notes_edit(world: World, entry: Entry) -> Screen:
    label = "Done" if world.version("notes") == 2 else "Save"
    body = [text_input("note_title", "Title", world), text_input("note_body", "Note", world)]
    return Screen("Edit note", body=body, actions=[W("button", label, key="save", tap=_save_note)])


@screen("notes.search")
def notes_search(world: World, entry: Entry) -> Screen:
    query = world.field("note_query").strip().lower()
    notes = world.data.notes
    hits = [i for i, n in enumerate(notes) if query and query in (n.title + n.body).lower()]
    body = _note_items(world, hits) or [W("text", "Type to search your notes")]
    return Screen("Search notes", header=[text_input("note_query", "Search", world)], body=body)


@popup("notes.popup_delete")
def delete_note(world: World, entry: Entry) -> Popup:
    index = int(entry.popup_params["index"])

    def confirm(w: World) -> None:
        w.data.notes.pop(index)
        w.close_popup()

    return Popup(
        "Delete note?",
        f"'{world.data.notes[index].title}' will be deleted.",
        buttons=[
            button("Cancel", "dismiss", lambda w: w.close_popup()),
            button("Delete", "confirm", confirm),
        ],
    )


# Weather ----------------------------------------------------------------------------------
def home_city(world: World) -> str:
    return CITIES[world.seed % len(CITIES)]


def _view_city(city: str) -> Handler:
    def handler(world: World) -> None:
        world.data.weather_viewed.append(city)
        world.push("weather.city", loading=True, city=city)

    return handler


def _city_body(world: World, city: str) -> list[W]:
    report = world.catalog.weather[city]
    return [
        W("label", city, key="city_name"),
        W("big", f"{report.temperature}°C", key="temperature", sub=report.condition),
        W("text", f"Feels like {report.temperature - 2}°C, wind 12 km/h"),
        nav_item("5-day forecast", "weather.forecast", key="open_forecast", city=city),
    ]


@screen("weather.home")
def weather_home(world: World, entry: Entry) -> Screen:
    search = W("button", "Search", key="open_search", tap=go("weather.search"), nav=True)
    return Screen("Weather", body=_city_body(world, home_city(world)), actions=[search], up=False)


@screen("weather.search")
def weather_search(world: World, entry: Entry) -> Screen:
    query = world.field("city_query").strip().lower()
    cities = [c for c in CITIES if query and c.lower().startswith(query)]
    body = [item(c, key=f"city_{c}", tap=_view_city(c), nav=True) for c in cities]
    return Screen(
        "Find a city",
        header=[text_input("city_query", "City name", world)],
        body=body or [W("text", "Type a city name")],
    )


@screen("weather.city")
def weather_city(world: World, entry: Entry) -> Screen:
    return Screen(str(entry.params["city"]), body=_city_body(world, str(entry.params["city"])))


@screen("weather.forecast")
def weather_forecast(world: World, entry: Entry) -> Screen:
    report = world.catalog.weather[str(entry.params["city"])]
    body = [item(f"{day}: {temp}°C", sub=cond) for day, temp, cond in report.forecast]
    return Screen(f"Forecast {report.city}", body=body)


# Mail -------------------------------------------------------------------------------------
INBOX = (
    ("Team", "Weekly update", "The sprint ends on Friday."),
    ("Bank", "Your statement", "Your monthly statement is ready."),
    ("Travel", "Trip reminder", "Your flight leaves at 08:15."),
)


@screen("mail.inbox")
def mail_inbox(world: World, entry: Entry) -> Screen:
    body: list[W] = [
        nav_item(f"{sender}: {subject}", "mail.view", sub=text[:30], key=f"mail_{i}", index=i)
        for i, (sender, subject, text) in enumerate(INBOX)
    ]
    body += [item(f"To {to}: {subject}", sub="Sent") for to, subject, _ in world.data.emails]
    fab = W("button", "+", key="compose", tap=go("mail.compose"), nav=True)
    return Screen("Inbox", body=body, fab=fab, up=False)


@screen("mail.view")
def mail_view(world: World, entry: Entry) -> Screen:
    sender, subject, text = INBOX[int(entry.params["index"])]
    body = [W("label", f"From {sender}"), W("big", subject[:14]), W("para", text)]
    return Screen(subject, body=body)


def _send_mail(world: World) -> None:
    to, subject = world.field("mail_to").strip(), world.field("mail_subject").strip()
    if not to:
        world.set_field("error", "Add a recipient")
        return
    world.data.emails.append((to, subject, world.field("mail_body").strip()))
    world.pop()


@screen("mail.compose")
def mail_compose(world: World, entry: Entry) -> Screen:
    body = [
        text_input("mail_to", "To", world),
        text_input("mail_subject", "Subject", world),
        text_input("mail_body", "Compose email", world),
    ]
    if world.field("error"):
        body.insert(0, W("text", world.field("error"), key="error"))
    send = W("button", "Send", key="send", tap=_send_mail)
    return Screen("Compose", body=body, actions=[send])
