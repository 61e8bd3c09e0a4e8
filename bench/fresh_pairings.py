"""Run wordings written for one change before any outcome was seen, on demo folders' KBs.

    .venv/bin/python bench/fresh_pairings.py runs/demo /tmp/ni:no-ids   # FOLDER[:SKIN] ...
    .venv/bin/python bench/fresh_pairings.py --set s8 runs/demo         # session 8's set
    .venv/bin/python bench/fresh_pairings.py --set es --figure spanish runs/demo  # per wording

The generalization benchmark's development half has guided many rules, so a change to the
planner is also checked on wordings written for it before it ran, outside the benchmark: each
is a pairing template of the benchmark's own readings and uses
(``pairings.pairing_template``), or a new wording of a recorded template (``--set s9``),
judged by SimPhone's checker, run on a few world seeds with the graph team. Session 7 wrote
the first set below, for reading a note and mailing it (and for messaging an article's
headline); once run, a set is development data like the rest, and a later change needs its
own fresh set (``--set``). Prints successes per KB and per wording; ``--failures`` also
prints each failed world's instruction and the steps the team took. ``--figure NAME`` records
the result as ``bench/results/NAME.json`` with a row per wording (default: ``fresh-wordings``,
a row per set); ``--note`` adds a fact to it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import benchrun
from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.choices import Memory
from guigraph.compiler.index import GraphView
from guigraph.envs import make
from guigraph.envs.simphone.generalize import Item, Kind, item_task
from guigraph.envs.simphone.pairings import PAIRINGS, READINGS, USES, pairing_template
from guigraph.graph.kb import KnowledgeBase

#: (reading, use) -> wordings, per set: each written before the change it checks was run.
#: Session 7's: reading a note and mailing it, and messaging an article's headline.
SESSION_7: dict[tuple[str, str], tuple[str, ...]] = {
    ("note_body", "mail"): (
        "Open the note {note} and email what it says to {contact}",
        "Email {contact} the text of the note {note}",
        "Read my note {note} and send it to {contact} by email",
        "Mail the contents of the note {note} to {contact}",
        "Please email {contact} whatever my {note} note says",
    ),
    ("headline", "message"): (
        "Text {contact} the title of the {site} article about {topic}",
        "Send {contact} a message with the headline of the {site} article about {topic}",
        "Look up the {site} article on {topic} and text {contact} its title",
    ),
}
#: Session 8's: a value of several lines (the first two lines of a song's lyrics) carried
#: into a note, a text and an email.
SESSION_8: dict[tuple[str, str], tuple[str, ...]] = {
    ("first_two_lyrics", "note"): (
        "Write the first two lines of the lyrics of {song} into a new note {title}",
        "Save the opening 2 lines of {song}'s lyrics in a note called {title}",
    ),
    ("first_two_lyrics", "message"): (
        "Text {contact} the first two lines of {song}",
        "Send {contact} lines one and two of the lyrics of {song}",
    ),
    ("first_two_lyrics", "mail"): ("Email {contact} the first 2 lines of the lyrics of {song}",),
}
#: Session 8's second: a song's artist or first lyric line written into a note or an email.
SESSION_8B: dict[tuple[str, str], tuple[str, ...]] = {
    ("artist", "note"): (
        "Find out who sings {song} and write it in a new note {title}",
        "Make a note called {title} with the artist of {song}",
        "Note down the singer of {song} under {title}",
    ),
    ("first_lyric", "note"): (
        "Put the first line of {song}'s lyrics in a note titled {title}",
        "Create a note {title} containing the opening line of {song}",
    ),
    ("first_lyric", "mail"): ("Email {contact} the first line of the lyrics of {song}",),
}
#: Session 9's, reworded seen tasks (template -> wordings): a name after a reworded
#: description ("the clip {video}"), a product beside plain words sharing its nouns, a
#: search a recorded run typed with part of a name.
SESSION_9: dict[str, tuple[str, ...]] = {
    "media.video": (
        "Put on the ViewTube clip {video}",
        "Can you find {video} on ViewTube and start it?",
    ),
    "social.share_video": ("Show {contact} the clip {video} from ViewTube",),
    "media.play": ("Could you start playing {song} in Tunes?", "Queue up {song} for me"),
    "shop.cart": ("I need a {product} in my cart", "Toss the {product} into the shopping cart"),
    "shop.buy": ("Please purchase one {product}", "Check out a {product} from ShopMall for me"),
    "media.like": ("Mark {song} as liked",),
    "media.photo": ("Use the camera app to take one photo",),
}
#: Session 9's second, reworded seen tasks: two new wordings of every recorded template,
#: in the ways users write (questions, requests, another word order, details first), to
#: find what fails structurally rather than for want of a synonym.
SESSION_9B: dict[str, tuple[str, ...]] = {
    "info.delete_note": ("Please get rid of my {title} note", "The note {title} can go: delete it"),
    "info.event": (
        "On {date} at {time} I have {title}; put it in my calendar",
        "Can you add an event {title} on {date}, {time}?",
    ),
    "info.note": (
        "New note, title {title}, text {body}",
        "Could you note {body} under the title {title}?",
    ),
    "info.reminder": ("I need a reminder to {text}", "Please remind me to {text}"),
    "info.weather": ("How is the weather in {city} today?", "Weather for {city}, please"),
    "media.like": ("Please like {song} in Tunes", "Can you like the song {song}?"),
    "media.photo": ("Take a picture for me", "Can you take a photo with the camera?"),
    "media.play": ("Play {song} for me", "Can you play the song {song} in Tunes?"),
    "media.playlist": (
        "Could you put {song} in my {playlist} playlist?",
        "Add the song {song} to the playlist {playlist}",
    ),
    "media.video": ("Play the video {video} on ViewTube", "Can you watch {video} on ViewTube?"),
    "multi.article_mail": (
        "Email the title of the {site} article about {topic} to {contact}",
        "Could you find the {topic} article on {site} and send its headline to {contact} by email?",
    ),
    "multi.event_alarm": (
        "Find the time of {title} in my calendar and set an alarm named {title} then",
        "Please add an alarm called {title} for when my {title} appointment is",
    ),
    "multi.lyrics_post": (
        "Share the first lyric line of {song} on Chirp",
        "Could you post the opening line of {song}'s lyrics to Chirp?",
    ),
    "multi.note_message": (
        "Text {contact} what my note {title} says",
        "Please send {contact} the text of the note {title}",
    ),
    "multi.photo_share": (
        "Take a picture and share it with {contact}",
        "Could you snap a photo and send it to {contact}?",
    ),
    "multi.price_note": (
        "Save the price of the {product} in a note called {title}",
        "Could you check how much the {product} costs and note it under {title}?",
    ),
    "multi.weather_note": (
        "Save the temperature in {city} to a new note {title}",
        "Could you note today's temperature in {city} under {title}?",
    ),
    "shop.article": (
        "Open the article about {topic} from {site}",
        "Could you find {site}'s article on {topic}?",
    ),
    "shop.bookmark": (
        "Bookmark the article about {topic} on {site}",
        "Could you bookmark {site}'s page on {topic}?",
    ),
    "shop.buy": ("Buy a {product} for me", "Can you order the {product} on ShopMall?"),
    "shop.cart": ("Can you add a {product} to the cart?", "Put the {product} in my cart, please"),
    "shop.wishlist": (
        "Save the {product} for later on ShopMall",
        "Could you add the {product} to my saved items?",
    ),
    "social.mail": (
        "Please email {contact} with the subject {subject}",
        "Could you send {contact} an email about {subject}?",
    ),
    "social.message": (
        "Please text {contact} '{text}'",
        "Can you send {contact} a message saying {text}?",
    ),
    "social.post": ("Please post '{text}' on Chirp", "Can you share a Chirp post saying {text}?"),
    "social.share_photo": (
        "Please share my latest photo with {contact}",
        "Can you send {contact} the newest picture in the Gallery?",
    ),
    "social.share_video": (
        "Please share the ViewTube video {video} with {contact}",
        "Can you send the video {video} to {contact}?",
    ),
    "tool.alarm": (
        "Please set an alarm called {label} for {time}",
        "Can you create an alarm at {time} named {label}?",
    ),
    "tool.brightness": (
        "Please set brightness to {level}%",
        "Can you make the brightness {level} percent?",
    ),
    "tool.dark_mode": ("Please switch dark theme {state}", "Can you turn the dark theme {state}?"),
    "tool.timer": (
        "Please start a {minutes} minute timer",
        "Can you set a timer for {minutes} minutes?",
    ),
    "tool.wifi": ("Please switch Wi-Fi {state}", "Can you turn Wi-Fi {state}?"),
    "tool.world_clock": (
        "Please add {city} to my world clock",
        "Can you show the time in {city} on the world clock?",
    ),
}
#: Session 11's, reworded seen tasks, written before they ran: a name owning the word the
#: recorded name came after ("{city}'s weather"), a pronoun after a question clause, a quoted
#: text where the recorded one was set off by a mark, and the same in other templates.
SESSION_11: dict[str, tuple[str, ...]] = {
    "info.weather": ("Tell me {city}'s weather", "What's {city}'s weather like today?"),
    "tool.world_clock": (
        "What time is it in {city}? Add it to my world clock",
        "Put {city}'s time on my world clock",
    ),
    "social.message": ("Can you text {contact} '{text}'?", "Send {contact} this text: '{text}'"),
    "social.post": ("Could you post '{text}' to Chirp?", "Chirp this: '{text}'"),
    "social.mail": ("Email {contact}, subject '{subject}'",),
    "multi.weather_note": ("Note {city}'s temperature under {title}",),
    "multi.lyrics_post": ("Post {song}'s first lyric line on Chirp",),
    "info.reminder": ("Remind me: '{text}'",),
    "media.play": ("Is {song} in Tunes? Play it",),
    "social.share_video": ("Find {video} on ViewTube and share it with {contact}",),
}
#: Session 11's second, written before it ran: a value set off by a mark where the recorded
#: wording had none, or another mark.
SESSION_11B: dict[str, tuple[str, ...]] = {
    "social.post": ("New Chirp post — {text}",),
    "info.note": ("Make a note called {title}: {body}",),
    "social.mail": ("Send {contact} an email, subject: {subject}",),
    "info.reminder": ("Reminder, please: {text}",),
    "social.message": ("Text for {contact}: {text}",),
}
#: Session 13's, written before it ran, for words a recorded run's controls show and no
#: recorded instruction says (``compiler.controls``): the control's word where the recorded
#: wording had another, and tasks that say such a word of another app in passing.
SESSION_13: dict[str, tuple[str, ...]] = {
    "shop.wishlist": (
        "Add the {product} to my wishlist",
        "Could you wishlist the {product}?",
        "Keep the {product} on my wish list",
    ),
    "shop.buy": (
        "Please place an order for the {product}",
        "Take the {product} through checkout",
    ),
    "shop.cart": ("Put the {product} in my cart, not the wishlist",),
    "tool.wifi": ("Toggle the Wi-Fi {state}", "Set the wireless network {state}"),
    "tool.dark_mode": ("Toggle the dark theme {state}",),
    "info.weather": ("Show me the forecast for {city}",),
    "tool.timer": ("Count down {minutes} minutes with a timer",),
    "media.photo": ("Press the shutter in the camera app",),
    "social.message": ("Start a chat with {contact} saying {text}",),
    "info.event": ("Create a calendar event {title} on {date} at {time}",),
}
#: Session 14's, written before it ran, for words of a task that no recorded instruction
#: says but the KB's sentence encoder knows a recorded word for (``compiler.neighbours``):
#: synonyms, other word forms and everyday words for what the recorded wording names.
SESSION_14: dict[str, tuple[str, ...]] = {
    "shop.buy": ("Go ahead and buy me a {product}", "Grab a {product} from ShopMall and pay"),
    "shop.cart": ("Drop the {product} into my basket",),
    "media.photo": ("Capture a photograph with the camera",),
    "media.play": ("Listen to {song} in Tunes",),
    "info.reminder": ("Don't let me forget to {text}",),
    "tool.alarm": ("Wake me at {time} with an alarm labelled {label}",),
    "tool.timer": ("Start a countdown of {minutes} minutes",),
    "social.mail": ("Send an e-mail to {contact} titled {subject}",),
    "social.message": ("Send an SMS to {contact}: {text}",),
    "info.delete_note": ("Remove the note {title}", "Erase my note {title}"),
    "media.like": ("Favourite the song {song} in Tunes",),
    "social.share_photo": ("Send {contact} my most recent photograph",),
    "tool.brightness": ("Dim the screen brightness to {level}%",),
    "info.event": ("Schedule {title} for {date} at {time}",),
    "media.video": ("Stream the ViewTube video {video}",),
    "shop.article": ("Read the {site} story about {topic}",),
    "multi.price_note": ("Record the cost of the {product} in a note named {title}",),
    "tool.world_clock": ("Include {city} among my world clocks",),
}
#: Session 14's second, written after runs inside runs (``compiler.contained``) were built
#: and before this set ran: a task in two parts, the first what a shorter recorded run does.
SESSION_14B: dict[str, tuple[str, ...]] = {
    "shop.bookmark": (
        "Open the {site} article about {topic} and save it to my bookmarks",
        "Search {site} for {topic}, then bookmark the article",
    ),
    "shop.buy": ("Search ShopMall for the {product} and buy it",),
    "shop.cart": ("Look up the {product} on ShopMall and add it to my cart",),
    "shop.wishlist": ("Find the {product} on ShopMall and save it for later",),
    "media.like": ("Find {song} in Tunes and like it",),
    "media.playlist": ("Open {song} in Tunes and add it to my {playlist} playlist",),
    "social.share_video": ("Open the ViewTube video {video} and send it to {contact}",),
    "social.share_photo": ("Open the Gallery and share my latest photo with {contact}",),
    "multi.photo_share": ("Use the camera to take a photo and share it with {contact}",),
    "info.delete_note": ("Open my note {title} and delete it",),
}
#: Session 15's, written before it ran and before any change of the session: reworded seen
#: tasks in the benchmark's kinds of rewording (questions, politeness, word order, numbers in
#: words, 12-hour times, month names, enable/disable), over single- and multi-app templates.
SESSION_15: dict[str, tuple[str, ...]] = {
    "tool.alarm": (
        "At {time:12h} I need an alarm, name it {label}",
        "Could you please wake me up at {time:hour}? Call the alarm {label}",
    ),
    "tool.timer": (
        "I need a {minutes:words}-minute timer",
        "Would you time {minutes} minutes for me?",
    ),
    "tool.wifi": ("Please {state:switch} the Wi-Fi", "Wi-Fi should be {state}, please"),
    "tool.dark_mode": ("Could you {state:switch} dark theme?",),
    "tool.brightness": ("Brightness to {level} percent, please",),
    "tool.world_clock": ("I'd like {city} on my world clock",),
    "info.note": ("Could you jot down a note named {title} saying {body}?",),
    "info.event": ("On {date:month} at {time:12h}, put {title} in my calendar",),
    "info.reminder": ("Could you remind me to {text}?",),
    "info.weather": ("How is the weather in {city}?",),
    "info.delete_note": ("Could you get rid of my note {title}?",),
    "shop.cart": ("The {product}: please put it in my cart",),
    "shop.buy": ("Could you order the {product} from ShopMall for me?",),
    "shop.wishlist": ("I'd like to save the {product} for later, please",),
    "shop.article": ("Open the {site} article you find when you search the web for {topic}",),
    "shop.bookmark": ("Please add a bookmark for the {site} page about {topic}",),
    "media.play": ("Could you put on {song}?",),
    "media.playlist": ("Put {song} on my {playlist} playlist, please",),
    "media.like": ("I like the song {song}, mark it so",),
    "media.video": ("Can you play the video {video} for me?",),
    "media.photo": ("Could you snap a photo?",),
    "social.message": ("Please send {contact} a text saying '{text}'",),
    "social.post": ("Could you put '{text}' on Chirp?",),
    "social.mail": ("Please write {contact} an email whose subject is {subject}",),
    "social.share_video": ("Could you share {video} with {contact}?",),
    "social.share_photo": ("Please share the last photo I have with {contact}",),
    "multi.weather_note": ("What's the temperature in {city}? Save it in a note called {title}",),
    "multi.note_message": ("Could you text {contact} what my note {title} says?",),
    "multi.weather_message": ("Please message {contact} the temperature in {city}",),
    "multi.price_note": ("How much is the {product}? Note the price under {title}",),
    "multi.price_message": ("Could you let {contact} know the price of the {product}?",),
    "multi.lyrics_post": ("Please post the opening line of {song}'s lyrics on Chirp",),
    "multi.event_alarm": ("When is my {title} appointment? Set an alarm then, labelled {title}",),
    "multi.article_mail": ("Please email {contact} the title of the {site} article on {topic}",),
    "multi.photo_share": ("Could you take a picture and send it to {contact}?",),
    "multi.song_message": ("Who sings {song}? Please text the answer to {contact}",),
    "multi.weather_note_message": (
        "Please note {city}'s temperature under {title} and then text it to {contact}",
    ),
}
#: Issue 33's second task language: Spanish wordings of 30 recorded templates, written before
#: any of them ran (the values stay the world's own: English names, dates and messages). The
#: planner reads them with Spanish's own small tables (``guigraph.language.spanish``) and
#: the libraries' Spanish numbers and times; nothing else of it knows Spanish.
SPANISH: dict[str, tuple[str, ...]] = {
    "social.message": ("Envía a {contact} el mensaje '{text}'",),
    "social.post": ("Publica '{text}' en Chirp",),
    "social.mail": ("Manda un correo a {contact} con el asunto {subject}",),
    "social.share_video": ("Comparte el vídeo {video} con {contact}",),
    "social.share_photo": ("Comparte mi última foto con {contact}",),
    "multi.weather_note": (
        "Mira la temperatura en {city} y guárdala en una nota titulada {title}",
    ),
    "multi.note_message": ("Envía el contenido de mi nota {title} a {contact}",),
    "multi.price_note": ("Busca el precio del {product} y apúntalo en la nota {title}",),
    "multi.lyrics_post": ("Publica en Chirp el primer verso de la letra de {song}",),
    "multi.event_alarm": ("Pon una alarma a la hora de mi cita {title}, llamada {title}",),
    "multi.article_mail": (
        "Busca el artículo de {site} sobre {topic} y envía su título por correo a {contact}",
    ),
    "multi.photo_share": ("Haz una foto y envíasela a {contact}",),
    "tool.alarm": ("Pon una alarma a las {time} llamada {label}",),
    "tool.timer": ("Pon un temporizador de {minutes} minutos",),
    "tool.world_clock": ("Añade {city} al reloj mundial",),
    "tool.brightness": ("Pon el brillo de la pantalla al {level}%",),
    "info.note": ("Crea una nota titulada {title} que diga {body}",),
    "info.event": ("Añade {title} a mi calendario el {date} a las {time}",),
    "info.weather": ("¿Qué tiempo hace en {city}?",),
    "info.delete_note": ("Borra la nota {title}",),
    "shop.cart": ("Añade el {product} a mi carrito",),
    "shop.buy": ("Compra el {product} en ShopMall",),
    "shop.wishlist": ("Guarda el {product} para más tarde",),
    "shop.article": ("Busca {topic} en la web y abre el artículo de {site}",),
    "shop.bookmark": ("Guarda en marcadores la página de {site} sobre {topic}",),
    "media.play": ("Reproduce la canción {song}",),
    "media.playlist": ("Añade {song} a mi lista {playlist}",),
    "media.like": ("Dale me gusta a la canción {song}",),
    "media.video": ("Mira el vídeo {video}",),
    "media.photo": ("Haz una foto",),
}
SETS: dict[str, dict[tuple[str, str], tuple[str, ...]] | dict[str, tuple[str, ...]]] = {
    "s7": SESSION_7, "s8": SESSION_8, "s8b": SESSION_8B, "s9": SESSION_9, "s9b": SESSION_9B,
    "s11": SESSION_11, "s11b": SESSION_11B, "s13": SESSION_13, "s14": SESSION_14,
    "s14b": SESSION_14B, "s15": SESSION_15, "es": SPANISH,
}  # fmt: skip
SEEDS = (5101, 5102, 5103)


def fresh_items(
    fresh: dict[tuple[str, str], tuple[str, ...]] | dict[str, tuple[str, ...]],
) -> list[Item]:
    """A set as benchmark items: new wordings of a recorded template as they are, pairings
    with their templates registered (``fresh.*`` ids)."""
    items = []
    for key, wordings in fresh.items():
        if isinstance(key, str):
            items += [
                Item(f"fresh.{key}.{n}", Kind.REWORDED, key, wording, group=key)
                for n, wording in enumerate(wordings)
            ]
            continue
        reading, use = key
        for number, wording in enumerate(wordings):
            template = pairing_template(
                f"fresh.{reading}_{use}.{number}", READINGS[reading], USES[use], (wording,)
            )
            tid = template.template_id
            PAIRINGS[tid] = template
            items.append(Item(tid, Kind.PAIRING, tid, wording, group=""))
    return items


def solved(
    kb: KnowledgeBase, view: GraphView, item: Item, seed: int, skin: str, show: bool = False
) -> bool:
    env = make("simphone", skin=skin)
    try:
        team = rule_team(kb, view, TeamOptions(memory=Memory.GRAPH))
        task = item_task(item, seed)
        result = run_episode(env, team, task, seed=seed, budget=Budget(max_steps=40))
        verdict = env.evaluate()
    finally:
        env.close()
    success = verdict is not None and verdict.success
    if show and not success:
        # What the team did in a failed world: the instruction, then each step executed.
        print(f"      FAIL seed {seed}: {task.instruction}")
        for step in result.steps:
            action, target = step.executed.action, step.executed.target
            said = action.text or action.app or ""
            label = f" {target.label!r}" if target else ""
            print(f"        {step.step:2d} {step.app}: {action.type.value}{label}"
                  f"{f' {said!r}' if said else ''} ({step.executed.reason})")  # fmt: skip
    return success


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", help="demo folders, FOLDER or FOLDER:SKIN")
    parser.add_argument(
        "--set", nargs="+", default=["s7"], choices=[*sorted(SETS), "all"],
        help="which fresh sets ('all': every set)",
    )  # fmt: skip
    parser.add_argument(
        "--failures", action="store_true", help="print each failed world's instruction and steps"
    )
    parser.add_argument("--figure", default="fresh-wordings", help="the result's name")
    parser.add_argument("--note", action="append", default=[], help="a fact for the result")
    args = parser.parse_args()
    bench = benchrun.start(args.figure)
    per_wording = args.figure != "fresh-wordings"
    wording_rows: list[list[object]] = []
    names = list(SETS) if "all" in args.set else args.set
    worlds: dict[str, int] = {}
    solved_by: dict[str, dict[str, int]] = {spec: {} for spec in args.folders}
    for name in names:
        items = fresh_items(SETS[name])
        worlds[name] = len(items) * len(SEEDS)
        for spec in args.folders:
            per = run_set(spec, name, items, args.failures)
            solved_by[spec][name] = sum(per)
            wording_rows += [[name, spec, item.template_id, item.wording, f"{wins}/{len(SEEDS)}"]
                             for item, wins in zip(items, per, strict=True)]  # fmt: skip
    if per_wording:
        bench.table("Worlds solved per wording", ["set", "KB", "template", "wording", "solved"],
                    wording_rows)  # fmt: skip
    bench.table(
        f"Worlds solved by the graph team ({len(SEEDS)} world seeds per wording), per KB",
        ["set", "worlds", *args.folders],
        [[name, worlds[name], *(solved_by[spec][name] for spec in args.folders)]
         for name in names],
    )  # fmt: skip
    bench.figure("worlds", sum(worlds.values()))
    for spec in args.folders:
        bench.figure(f"solved:{spec}", sum(solved_by[spec].values()))
        bench.figure(f"sr:{spec}", round(sum(solved_by[spec].values()) / sum(worlds.values()), 3))
    for note in args.note:
        bench.note(note)
    bench.save()


def run_set(spec: str, name: str, items: list[Item], failures: bool) -> list[int]:
    """Worlds of one set the graph team solves on one demo folder's KB; printed per wording."""
    folder, _, skin = spec.partition(":")
    with KnowledgeBase.open(Path(folder) / "kb") as kb:
        view = GraphView.load(kb)
        per = []
        for item in items:
            runs = [solved(kb, view, item, seed, skin or "standard", failures)
                    for seed in SEEDS]  # fmt: skip
            per.append(sum(runs))
    print(f"{name} {folder} ({skin or 'standard'}): {sum(per)}/{len(per) * len(SEEDS)} {per}")
    for item, wins in zip(items, per, strict=True):
        print(f"    {wins}/{len(SEEDS)}  {item.wording}")
    return per


if __name__ == "__main__":
    main()
