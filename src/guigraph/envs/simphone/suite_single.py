"""Templates of the single-app categories: tools, information, shopping, media."""

from __future__ import annotations

from guigraph.envs.simphone import fragments as f
from guigraph.envs.simphone.expert import tap
from guigraph.envs.simphone.templates import (
    EVENTS,
    LABELS,
    NOTE_TITLES,
    REMINDERS,
    _aid,
    _article,
    _city,
    _old_note,
    _pid,
    _product,
    _sid,
    _song,
    _switch,
    _time,
    _vid,
    _video,
    hhmm,
    note_with,
    template,
)

TOOL, INFO, SHOP = "General_Tool", "Information_Management", "Web_Shopping"
MEDIA = "Media_Entertainment"

# General_Tool -----------------------------------------------------------------------------
template(
    "tool.alarm",
    TOOL,
    ("Clock",),
    (
        "Set an alarm for {time} called {label}",
        "Wake me at {time} with an alarm named {label}",
        "Create a {time} alarm labelled {label}",
    ),
    lambda r, w: {"time": _time(r), "label": r.choice(LABELS)},
    lambda p, w: f.set_alarm(p["time"], p["label"]),
    lambda p, w: any(
        a.time == hhmm(p["time"]) and a.label == p["label"] and a.on for a in w.data.alarms
    ),
)
template(
    "tool.timer",
    TOOL,
    ("Clock",),
    ("Start a timer for {minutes} minutes", "Set a {minutes} minute timer"),
    lambda r, w: {"minutes": str(r.choice((3, 5, 10, 15, 25, 45)))},
    lambda p, w: f.start_timer(p["minutes"]),
    lambda p, w: w.data.timer == f"{p['minutes']} min",
)
template(
    "tool.world_clock",
    TOOL,
    ("Clock",),
    ("Add {city} to the world clock", "Show the time in {city} in the Clock app"),
    lambda r, w: {"city": _city(r, w)},
    lambda p, w: f.add_world_clock(p["city"]),
    lambda p, w: p["city"] in w.data.world_clocks,
)
template(
    "tool.wifi",
    TOOL,
    ("Settings",),
    ("Turn Wi-Fi {state}", "Switch {state} the Wi-Fi", "Please turn the Wi-Fi {state}"),
    _switch("wifi"),
    lambda p, w: f.set_switch("open_wifi", "wifi_toggle", "wifi", p["state"] == "on"),
    lambda p, w: w.data.settings["wifi"] == (p["state"] == "on"),
)
template(
    "tool.dark_mode",
    TOOL,
    ("Settings",),
    ("Turn dark theme {state}", "Switch the dark theme {state} in Settings"),
    _switch("dark_mode"),
    lambda p, w: f.set_switch("open_display", "dark_toggle", "dark_mode", p["state"] == "on"),
    lambda p, w: w.data.settings["dark_mode"] == (p["state"] == "on"),
)
template(
    "tool.brightness",
    TOOL,
    ("Settings",),
    ("Set the screen brightness to {level}%", "Change brightness to {level} percent"),
    lambda r, w: {
        "level": str(r.choice([v for v in (30, 50, 70, 100) if v != w.data.settings["brightness"]]))
    },
    lambda p, w: f.set_brightness(p["level"]),
    lambda p, w: w.data.settings["brightness"] == int(p["level"]),
)

# Information_Management -------------------------------------------------------------------
template(
    "info.note",
    INFO,
    ("Notes",),
    (
        "Create a note titled {title} that says {body}",
        "Write a note '{title}': {body}",
        "Jot down {body} in a new note called {title}",
    ),
    lambda r, w: {"title": r.choice(NOTE_TITLES), "body": r.choice(REMINDERS)},
    lambda p, w: f.create_note(p["title"], p["body"]),
    lambda p, w: (note_with(w, p["title"]) or "").lower() == p["body"].lower(),
)
template(
    "info.event",
    INFO,
    ("Calendar",),
    ("Add {title} to my calendar on {date} at {time}", "Schedule {title} for {date}, {time}"),
    lambda r, w: {"title": r.choice(EVENTS), "date": f"Jun {r.randint(13, 30)}", "time": _time(r)},
    lambda p, w: f.create_event(p["title"], p["date"], p["time"]),
    lambda p, w: any(
        e.title == p["title"] and e.date == p["date"] and e.time == p["time"] for e in w.data.events
    ),
)
template(
    "info.reminder",
    INFO,
    ("Calendar",),
    ("Remind me to {text}", "Add a reminder to {text}", "Set a reminder: {text}"),
    lambda r, w: {"text": r.choice(REMINDERS)},
    lambda p, w: f.create_reminder(p["text"]),
    lambda p, w: p["text"] in w.data.reminders,
)
template(
    "info.weather",
    INFO,
    ("Weather",),
    (
        "Check the weather in {city}",
        "What is the weather like in {city}?",
        "Look up today's weather for {city}",
    ),
    lambda r, w: {"city": _city(r, w)},
    lambda p, w: f.check_weather(p["city"]),
    lambda p, w: p["city"] in w.data.weather_viewed,
)
template(
    "info.delete_note",
    INFO,
    ("Notes",),
    ("Delete the note {title}", "Remove my note called {title}"),
    lambda r, w: {"title": _old_note(r, w)},
    lambda p, w: f.delete_note(w, p["title"]),
    lambda p, w: note_with(w, p["title"]) is None,
)

# Web_Shopping -----------------------------------------------------------------------------
template(
    "shop.cart",
    SHOP,
    ("ShopMall",),
    ("Add the {product} to my cart", "Put a {product} in the shopping cart on ShopMall"),
    lambda r, w: {"product": _product(r, w)},
    lambda p, w: [*f.find_product(w, p["product"]), *f.add_to_cart()],
    lambda p, w: _pid(w, p) in w.data.cart,
)
template(
    "shop.buy",
    SHOP,
    ("ShopMall",),
    ("Buy the {product} on ShopMall", "Order a {product} and check out", "Purchase the {product}"),
    lambda r, w: {"product": _product(r, w)},
    lambda p, w: [*f.find_product(w, p["product"]), *f.add_to_cart(), *f.checkout()],
    lambda p, w: any(_pid(w, p) in order for order in w.data.orders),
)
template(
    "shop.wishlist",
    SHOP,
    ("ShopMall",),
    ("Save the {product} for later", "Add the {product} to my saved items"),
    lambda r, w: {"product": _product(r, w)},
    lambda p, w: [*f.find_product(w, p["product"]), tap("add_to_wishlist")],
    lambda p, w: _pid(w, p) in w.data.wishlist,
)
template(
    "shop.article",
    SHOP,
    ("Browser",),
    (
        "Search the web for {topic} and open the {site} article",
        "Find the article about {topic} on {site}",
    ),
    _article,
    lambda p, w: f.open_article(w, p["topic"], p["site"]),
    lambda p, w: _aid(w, p) in w.data.history,
)
template(
    "shop.bookmark",
    SHOP,
    ("Browser",),
    ("Bookmark the {site} page about {topic}", "Save the {site} article on {topic} to bookmarks"),
    _article,
    lambda p, w: [*f.open_article(w, p["topic"], p["site"]), tap("bookmark")],
    lambda p, w: _aid(w, p) in w.data.bookmarks,
)

# Media_Entertainment ----------------------------------------------------------------------
template(
    "media.play",
    MEDIA,
    ("Tunes",),
    ("Play the song {song}", "Put on {song} in Tunes", "I want to listen to {song}"),
    lambda r, w: {"song": _song(r, w)},
    lambda p, w: f.play_song(w, p["song"]),
    lambda p, w: w.data.now_playing == _sid(w, p),
)
template(
    "media.playlist",
    MEDIA,
    ("Tunes",),
    ("Add {song} to my {playlist} playlist", "Put the song {song} on the {playlist} playlist"),
    lambda r, w: {
        "song": r.choice([s.title for s in w.catalog.songs if s.sid not in (0, 3, 5)]),
        "playlist": r.choice(("Favorites", "Workout")),
    },
    lambda p, w: [*f.play_song(w, p["song"]), *f.add_song_to_playlist(p["playlist"])],
    lambda p, w: _sid(w, p) in w.data.playlists[p["playlist"]],
)
template(
    "media.like",
    MEDIA,
    ("Tunes",),
    ("Like the song {song}", "Add {song} to my liked songs"),
    lambda r, w: {"song": _song(r, w)},
    lambda p, w: [*f.play_song(w, p["song"]), tap("like")],
    lambda p, w: _sid(w, p) in w.data.liked_songs,
)
template(
    "media.video",
    MEDIA,
    ("ViewTube",),
    ("Watch the video {video}", "Play '{video}' on ViewTube"),
    lambda r, w: {"video": _video(r, w)},
    lambda p, w: f.watch_video(w, p["video"]),
    lambda p, w: _vid(w, p) in w.data.watched,
)
template(
    "media.photo",
    MEDIA,
    ("Camera",),
    ("Take a photo", "Snap a picture with the camera", "Use the Camera to take a photo"),
    lambda r, w: {"before": str(len(w.data.photos))},
    lambda p, w: f.take_photo(),
    lambda p, w: len(w.data.photos) > int(p["before"]),
)
