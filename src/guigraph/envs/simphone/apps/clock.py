"""Clock (alarms, world clock, timer, stopwatch) and Calendar (agenda, events, reminders)."""

from __future__ import annotations

import re

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
    popup,
    row,
    screen,
    text_input,
    toggle,
)
from guigraph.envs.simphone.world import Alarm, Entry, Event, World

app("clock", "Clock", "clock.alarms", (94, 53, 177))
app("calendar", "Calendar", "calendar.agenda", (11, 128, 67))

TIME = re.compile(r"^([01]?\d|2[0-3]):[0-5]\d$")
CLOCK_TABS = (
    ("Alarm", "clock.alarms"),
    ("World", "clock.world"),
    ("Timer", "clock.timer"),
    ("Stopwatch", "clock.stopwatch"),
)


def _tabs(current: str) -> list[W]:
    def switch(target: str) -> Handler:
        return lambda world: world.replace(target)

    return [
        W(
            "tab",
            label,
            key=f"tab_{target.split('.')[1]}",
            checked=target == current,
            tap=switch(target),
        )
        for label, target in CLOCK_TABS
    ]


def _flip(index: int) -> Handler:
    def handler(world: World) -> None:
        world.data.alarms[index].on = not world.data.alarms[index].on

    return handler


@screen("clock.alarms")
def alarms(world: World, entry: Entry) -> Screen:
    body: list[W] = [
        toggle(f"{a.time}  {a.label}", f"alarm_{i}", a.on, _flip(i))
        for i, a in enumerate(world.data.alarms)
    ] or [W("text", "No alarms")]
    fab = W("button", "+", key="add_alarm", tap=go("clock.new_alarm"), nav=True)
    return Screen("Clock", body=body, bottom=_tabs("clock.alarms"), fab=fab, up=False)


def _save_alarm(world: World) -> None:
    time = world.field("alarm_time").strip()
    if not TIME.match(time):
        world.toast("Enter the time as HH:MM")
        world.set_field("error", "Enter the time as HH:MM")
        return
    hours, minutes = time.split(":")
    world.data.alarms.append(Alarm(f"{int(hours):02d}:{minutes}", world.field("alarm_label")))
    world.pop()


@screen("clock.new_alarm")
def new_alarm(world: World, entry: Entry) -> Screen:
    body = [
        W("label", "Time"),
        text_input("alarm_time", "HH:MM", world),
        W("label", "Label"),
        text_input("alarm_label", "Alarm name", world),
        row(button("Cancel", "cancel", lambda w: w.pop()), button("Save", "save", _save_alarm)),
    ]
    if world.field("error"):
        body.insert(0, W("text", world.field("error"), key="error"))
    return Screen("New alarm", body=body)


@screen("clock.world")
def world_clock(world: World, entry: Entry) -> Screen:
    body: list[W] = [
        item(city, sub=f"{sum(map(ord, city)) % 12 - 5:+d} h") for city in world.data.world_clocks
    ]
    fab = W("button", "+", key="add_city", tap=go("clock.add_city"), nav=True)
    return Screen("World clock", body=body, bottom=_tabs("clock.world"), fab=fab, up=False)


def _add_city(city: str) -> Handler:
    def handler(world: World) -> None:
        if city not in world.data.world_clocks:
            world.data.world_clocks.append(city)
        world.pop()

    return handler


@screen("clock.add_city")
def add_city(world: World, entry: Entry) -> Screen:
    query = world.field("city_query").strip().lower()
    cities = [c for c in CITIES if query in c.lower()]
    body = [item(c, key=f"city_{c}", tap=_add_city(c)) for c in cities]
    return Screen("Add city", header=[text_input("city_query", "Search city", world)], body=body)


def _start_timer(world: World) -> None:
    minutes = world.field("minutes").strip()
    if minutes.isdigit() and 0 < int(minutes) <= 180:
        world.data.timer = f"{int(minutes)} min"
        world.set_field("minutes", "")
    else:
        world.set_field("error", "Enter 1 to 180 minutes")


@screen("clock.timer")
def timer(world: World, entry: Entry) -> Screen:
    body: list[W] = []
    if world.data.timer:
        body += [
            W("big", world.data.timer, key="timer_value", sub="running"),
            button("Stop", "stop_timer", lambda w: setattr(w.data, "timer", "")),
        ]
    else:
        body += [
            W("label", "Minutes"),
            text_input("minutes", "e.g. 10", world),
            button("Start", "start_timer", _start_timer),
        ]
        if world.field("error"):
            body.append(W("text", world.field("error"), key="error"))
    return Screen("Timer", body=body, bottom=_tabs("clock.timer"), up=False)


@screen("clock.stopwatch")
def stopwatch(world: World, entry: Entry) -> Screen:
    laps = entry.params.get("laps", 0)

    def lap(w: World) -> None:
        entry.params["laps"] = int(laps) + 1

    body = [W("big", f"00:{int(laps) * 7 % 60:02d}.00"), row(button("Lap", "lap", lap))]
    body += [W("text", f"Lap {n + 1}") for n in range(int(laps))]
    return Screen("Stopwatch", body=body, bottom=_tabs("clock.stopwatch"), up=False)


# Calendar ---------------------------------------------------------------------------------
@screen("calendar.agenda")
def agenda(world: World, entry: Entry) -> Screen:
    body: list[W] = [W("label", "Upcoming")]
    body += [
        W(
            "item",
            e.title,
            key=f"event_{i}",
            sub=f"{e.date}, {e.time}",
            tap=go("calendar.event", index=i),
            nav=True,
        )
        for i, e in enumerate(world.data.events)
    ]
    actions = [
        W("button", "Reminders", key="open_reminders", tap=go("calendar.reminders"), nav=True)
    ]
    fab = W("button", "+", key="add_event", tap=go("calendar.new_event"), nav=True)
    return Screen("Calendar", body=body, actions=actions, fab=fab, up=False)


def _save_event(world: World) -> None:
    title, date = world.field("event_title").strip(), world.field("event_date").strip()
    time = world.field("event_time").strip()
    if not title or not date or not TIME.match(time):
        world.set_field("error", "Fill in title, date and time (HH:MM)")
        return
    world.data.events.append(Event(title, date, time))
    world.pop()


@screen("calendar.new_event")
def new_event(world: World, entry: Entry) -> Screen:
    body: list[W] = [
        text_input("event_title", "Title", world),
        text_input("event_date", "Date (e.g. Jun 20)", world),
        text_input("event_time", "Time (HH:MM)", world),
        button("Save", "save", _save_event),
    ]
    if world.field("error"):
        body.insert(0, W("text", world.field("error"), key="error"))
    return Screen("New event", body=body)


@screen("calendar.event")
def event_detail(world: World, entry: Entry) -> Screen:
    index = int(entry.params["index"])
    if index >= len(world.data.events):
        return Screen("Event", body=[W("text", "This event was deleted")])
    event = world.data.events[index]
    body = [
        W("big", event.title, key="event_title"),
        W("text", event.date, key="event_date"),
        W("text", event.time, key="event_time"),
        button("Delete", "delete", lambda w: w.show_popup("calendar.popup_delete")),
    ]
    return Screen("Event", body=body)


@popup("calendar.popup_delete")
def delete_event(world: World, entry: Entry) -> Popup:
    index = int(entry.params["index"])

    def confirm(w: World) -> None:
        w.data.events.pop(index)
        w.close_popup()
        w.pop()

    return Popup(
        "Delete event?",
        "This cannot be undone.",
        buttons=[
            button("Cancel", "dismiss", lambda w: w.close_popup()),
            button("Delete", "confirm", confirm),
        ],
    )


@screen("calendar.reminders")
def reminders(world: World, entry: Entry) -> Screen:
    body: list[W] = [item(r, key=f"reminder_{i}") for i, r in enumerate(world.data.reminders)]
    fab = W("button", "+", key="add_reminder", tap=go("calendar.new_reminder"), nav=True)
    return Screen("Reminders", body=body or [W("text", "Nothing to remember")], fab=fab)


def _save_reminder(world: World) -> None:
    text = world.field("reminder").strip()
    if text:
        world.data.reminders.append(text)
        world.pop()


@screen("calendar.new_reminder")
def new_reminder(world: World, entry: Entry) -> Screen:
    body = [
        text_input("reminder", "Remind me to...", world),
        button("Save", "save", _save_reminder),
    ]
    return Screen("New reminder", body=body)
