"""The 36 templates of the suite, over GUIOdyssey's six categories."""

from __future__ import annotations

from guigraph.envs.simphone import fragments as f
from guigraph.envs.simphone.expert import tap
from guigraph.envs.simphone.templates import (
    EVENTS,
    LABELS,
    MESSAGES,
    NOTE_TITLES,
    POSTS,
    REMINDERS,
    _aid,
    _article,
    _city,
    _contact,
    _old_note,
    _pid,
    _product,
    _sid,
    _song,
    _switch,
    _time,
    _vid,
    _video,
    has_number,
    hhmm,
    note_with,
    sent,
    sent_number,
    template,
)

TOOL, INFO, SHOP = "General_Tool", "Information_Management", "Web_Shopping"
MEDIA, SOCIAL, MULTI = "Media_Entertainment", "Social_Sharing", "Multi_Apps"

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

# Social_Sharing ---------------------------------------------------------------------------
template(
    "social.message",
    SOCIAL,
    ("Messages",),
    (
        "Text {contact} '{text}'",
        "Send {contact} a message saying {text}",
        "Message {contact}: {text}",
    ),
    lambda r, w: {"contact": _contact(r, w), "text": r.choice(MESSAGES)},
    lambda p, w: f.send_message(w, p["contact"], p["text"]),
    lambda p, w: sent(w, p["contact"], p["text"]),
)
template(
    "social.post",
    SOCIAL,
    ("Chirp",),
    ("Post '{text}' on Chirp", "Share a Chirp post saying {text}"),
    lambda r, w: {"text": r.choice(POSTS)},
    lambda p, w: f.post(p["text"]),
    lambda p, w: p["text"] in w.data.posts,
)
template(
    "social.mail",
    SOCIAL,
    ("Mail",),
    ("Email {contact} with the subject {subject}", "Send an email to {contact} about {subject}"),
    lambda r, w: {"contact": _contact(r, w), "subject": r.choice(EVENTS)},
    lambda p, w: f.send_mail(p["contact"], p["subject"], "See you there"),
    lambda p, w: any(to == p["contact"] and s == p["subject"] for to, s, _ in w.data.emails),
)
template(
    "social.share_video",
    SOCIAL,
    ("ViewTube", "Messages"),
    ("Share the video {video} with {contact}", "Send {contact} the ViewTube video {video}"),
    lambda r, w: {"video": _video(r, w), "contact": r.choice(w.catalog.contacts[:5])},
    lambda p, w: [*f.watch_video(w, p["video"]), *f.share_to(p["contact"])],
    lambda p, w: sent(w, p["contact"], p["video"]),
)
template(
    "social.share_photo",
    SOCIAL,
    ("Gallery", "Messages"),
    ("Share my latest photo with {contact}", "Send the newest picture in Gallery to {contact}"),
    lambda r, w: {"contact": r.choice(w.catalog.contacts[:5]), "photo": w.data.photos[-1]},
    lambda p, w: [*f.open_latest_photo(w), *f.share_to(p["contact"])],
    lambda p, w: sent(w, p["contact"], f"[Photo {p['photo']}]"),
)

# Multi_Apps -------------------------------------------------------------------------------
template(
    "multi.weather_note",
    MULTI,
    ("Weather", "Notes"),
    (
        "Check the temperature in {city} and save it in a note titled {title}",
        "Write today's {city} temperature into a new note called {title}",
    ),
    lambda r, w: {"city": _city(r, w), "title": r.choice(NOTE_TITLES)},
    lambda p, w: [
        *f.check_weather(p["city"]),
        *f.create_note(p["title"], f"{p['city']} {f.temperature(w, p['city'])}"),
    ],
    lambda p, w: has_number(note_with(w, p["title"]) or "", f.temperature(w, p["city"])),
)
template(
    "multi.note_message",
    MULTI,
    ("Notes", "Messages"),
    (
        "Send the content of my note {title} to {contact}",
        "Open the note {title} and text what it says to {contact}",
    ),
    lambda r, w: {"title": _old_note(r, w), "contact": _contact(r, w)},
    lambda p, w: [
        *f.open_note(w, p["title"]),
        *f.send_message(w, p["contact"], f.note_body(w, p["title"])),
    ],
    lambda p, w: sent(w, p["contact"], f.note_body(w, p["title"])),
)
template(
    "multi.weather_message",
    MULTI,
    ("Weather", "Messages"),
    (
        "Tell {contact} the temperature in {city} by message",
        "Look up the weather in {city} and text the temperature to {contact}",
    ),
    lambda r, w: {"city": _city(r, w), "contact": _contact(r, w)},
    lambda p, w: [
        *f.check_weather(p["city"]),
        *f.send_message(w, p["contact"], f"{p['city']} is {f.temperature(w, p['city'])}"),
    ],
    lambda p, w: sent_number(w, p["contact"], f.temperature(w, p["city"])),
    recombines=("multi.weather_note", "multi.note_message"),
)
template(
    "multi.price_note",
    MULTI,
    ("ShopMall", "Notes"),
    (
        "Find the price of the {product} and note it down under {title}",
        "Look up what the {product} costs on ShopMall and save it in a note {title}",
    ),
    lambda r, w: {"product": _product(r, w), "title": r.choice(NOTE_TITLES)},
    lambda p, w: [
        *f.find_product(w, p["product"]),
        *f.create_note(p["title"], f"{p['product']} {f.price(w, p['product'])}"),
    ],
    lambda p, w: has_number(note_with(w, p["title"]) or "", f.price(w, p["product"])),
)
template(
    "multi.price_message",
    MULTI,
    ("ShopMall", "Messages"),
    (
        "Tell {contact} how much the {product} costs",
        "Check the {product} price on ShopMall and message it to {contact}",
    ),
    lambda r, w: {"product": _product(r, w), "contact": _contact(r, w)},
    lambda p, w: [
        *f.find_product(w, p["product"]),
        *f.send_message(w, p["contact"], f"It costs {f.price(w, p['product'])}"),
    ],
    lambda p, w: sent_number(w, p["contact"], f.price(w, p["product"])),
    recombines=("multi.price_note", "multi.note_message"),
)
template(
    "multi.lyrics_post",
    MULTI,
    ("Tunes", "Chirp"),
    (
        "Post the first line of the lyrics of {song} on Chirp",
        "Open the lyrics of {song} and share its first line as a Chirp post",
    ),
    lambda r, w: {"song": _song(r, w)},
    lambda p, w: [
        *f.play_song(w, p["song"]),
        tap("open_lyrics"),
        *f.post(f.first_lyric(w, p["song"])),
    ],
    lambda p, w: f.first_lyric(w, p["song"]) in w.data.posts,
)
template(
    "multi.event_alarm",
    MULTI,
    ("Calendar", "Clock"),
    (
        "Set an alarm at the time of my {title} appointment, labelled {title}",
        "Look up when {title} is in the calendar and add an alarm named {title} at that time",
    ),
    lambda r, w: {"title": w.data.events[0].title},
    lambda p, w: [
        *f.open_event(w, p["title"]),
        *f.set_alarm(f.event_time(w, p["title"]), p["title"]),
    ],
    lambda p, w: any(
        a.time == hhmm(f.event_time(w, p["title"])) and a.label == p["title"] for a in w.data.alarms
    ),
)
template(
    "multi.article_mail",
    MULTI,
    ("Browser", "Mail"),
    (
        "Find the {site} article about {topic} and email its title to {contact}",
        "Email {contact} the headline of the {topic} article on {site}",
    ),
    lambda r, w: {**_article(r, w), "contact": _contact(r, w)},
    lambda p, w: [
        *f.open_article(w, p["topic"], p["site"]),
        *f.send_mail(p["contact"], p["title"], "Worth a read"),
    ],
    lambda p, w: any(to == p["contact"] and s == p["title"] for to, s, _ in w.data.emails),
)
template(
    "multi.photo_share",
    MULTI,
    ("Camera", "Gallery", "Messages"),
    (
        "Take a photo and send it to {contact}",
        "Snap a picture, then share it with {contact} from the Gallery",
    ),
    lambda r, w: {"contact": r.choice(w.catalog.contacts[:5]), "before": str(len(w.data.photos))},
    lambda p, w: [*f.take_photo(), *f.open_latest_photo(w, extra=1), *f.share_to(p["contact"])],
    lambda p, w: (
        len(w.data.photos) > int(p["before"])
        and sent(w, p["contact"], f"[Photo {w.data.photos[-1]}]")
    ),
)
template(
    "multi.weather_note_message",
    MULTI,
    ("Weather", "Notes", "Messages"),
    (
        "Note the temperature in {city} under {title}, then text it to {contact}",
        "Save {city}'s temperature in a note called {title} and send it to {contact}",
    ),
    lambda r, w: {"city": _city(r, w), "title": r.choice(NOTE_TITLES), "contact": _contact(r, w)},
    lambda p, w: [
        *f.check_weather(p["city"]),
        *f.create_note(p["title"], f"{p['city']} {f.temperature(w, p['city'])}"),
        *f.send_message(w, p["contact"], f"{p['city']} {f.temperature(w, p['city'])}"),
    ],
    lambda p, w: (
        has_number(note_with(w, p["title"]) or "", f.temperature(w, p["city"]))
        and sent_number(w, p["contact"], f.temperature(w, p["city"]))
    ),
    recombines=("multi.weather_note", "multi.note_message"),
)
template(
    "multi.song_message",
    MULTI,
    ("Tunes", "Messages"),
    ("Tell {contact} who sings {song}", "Find the artist of {song} and text it to {contact}"),
    lambda r, w: {"song": _song(r, w), "contact": _contact(r, w)},
    lambda p, w: [
        *f.play_song(w, p["song"]),
        *f.send_message(
            w, p["contact"], f"{p['song']} is by {w.catalog.song_titled(p['song']).artist}"
        ),
    ],
    lambda p, w: sent(w, p["contact"], w.catalog.song_titled(p["song"]).artist),
    recombines=("multi.lyrics_post", "multi.note_message"),
)
