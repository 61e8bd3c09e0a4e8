"""Templates that share and combine: Social_Sharing and Multi_Apps (incl. recombinations)."""

from __future__ import annotations

from guigraph.envs.simphone import fragments as f
from guigraph.envs.simphone.expert import tap
from guigraph.envs.simphone.templates import (
    EVENTS,
    MESSAGES,
    NOTE_TITLES,
    POSTS,
    _article,
    _city,
    _contact,
    _old_note,
    _product,
    _song,
    _video,
    alarm_at_event,
    has_number,
    note_with,
    sent,
    sent_note,
    sent_number,
    template,
)

SOCIAL, MULTI = "Social_Sharing", "Multi_Apps"

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
    lambda p, w: sent_note(w, p["contact"], p["title"]),
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
    lambda p, w: alarm_at_event(w, p["title"]),
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
template(
    "multi.trip_plan",
    MULTI,
    ("Weather", "Calendar", "Notes", "Messages"),
    (
        "Plan a trip to {city} on {date} at {time}: add it to the calendar, note the "
        "temperature under {title} and text it to {contact}",
        "Put 'Trip to {city}' in my calendar for {date}, {time}, save {city}'s temperature "
        "in a note {title}, and message {contact} the temperature",
    ),
    lambda r, w: {
        "city": _city(r, w),
        "date": f"Jul {r.randint(1, 28)}",
        "time": f"{r.randint(6, 20):02d}:00",
        "title": r.choice(NOTE_TITLES),
        "contact": _contact(r, w),
    },
    lambda p, w: [
        *f.check_weather(p["city"]),
        *f.create_event(f"Trip to {p['city']}", p["date"], p["time"]),
        *f.create_note(p["title"], f"{p['city']} {f.temperature(w, p['city'])}"),
        *f.send_message(w, p["contact"], f"{p['city']} will be {f.temperature(w, p['city'])}"),
    ],
    lambda p, w: (
        any(e.title == f"Trip to {p['city']}" and e.date == p["date"] for e in w.data.events)
        and has_number(note_with(w, p["title"]) or "", f.temperature(w, p["city"]))
        and sent_number(w, p["contact"], f.temperature(w, p["city"]))
    ),
    recombines=("multi.weather_note", "info.event", "multi.note_message"),
)
template(
    "multi.message_note_reply",
    MULTI,
    ("Messages", "Notes"),
    (
        "Save {contact}'s last message in a note called {title}, then reply '{reply}'",
        "Copy what {contact} texted me into a new note {title} and answer {contact} '{reply}'",
    ),
    lambda r, w: {
        "contact": r.choice(list(w.data.chats)),
        "title": r.choice(NOTE_TITLES),
        "reply": r.choice(("Noted", "Got it, thanks", "Saved it")),
    },
    lambda p, w: [
        *f.open_chat(p["contact"]),
        *f.create_note(p["title"], f.last_message(w, p["contact"])),
        *f.send_message(w, p["contact"], p["reply"]),
    ],
    lambda p, w: (
        (note_with(w, p["title"]) or "").lower() == f.last_message(w, p["contact"]).lower()
        and sent(w, p["contact"], p["reply"])
    ),
    recombines=("multi.note_message",),
)
