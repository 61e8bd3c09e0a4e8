"""Run wordings written for one change before any outcome was seen, on demo folders' KBs.

    .venv/bin/python bench/fresh_pairings.py runs/demo /tmp/ni:no-ids   # FOLDER[:SKIN] ...
    .venv/bin/python bench/fresh_pairings.py --set s8 runs/demo         # session 8's set

The generalization benchmark's development half has guided many rules, so a change to the
planner is also checked on wordings written for it before it ran, outside the benchmark: each
is a pairing template of the benchmark's own readings and uses
(``pairings.pairing_template``), or a new wording of a recorded template (``--set s9``),
judged by SimPhone's checker, run on a few world seeds with the graph team. Session 7 wrote
the first set below, for reading a note and mailing it (and for messaging an article's
headline); once run, a set is development data like the rest, and a later change needs its
own fresh set (``--set``). Prints successes per KB and per wording.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
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
SETS: dict[str, dict[tuple[str, str], tuple[str, ...]] | dict[str, tuple[str, ...]]] = {
    "s7": SESSION_7, "s8": SESSION_8, "s8b": SESSION_8B, "s9": SESSION_9,
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


def solved(kb: KnowledgeBase, view: GraphView, item: Item, seed: int, skin: str) -> bool:
    env = make("simphone", skin=skin)
    try:
        team = rule_team(kb, view, TeamOptions(memory="graph"))
        run_episode(env, team, item_task(item, seed), seed=seed, budget=Budget(max_steps=40))
        verdict = env.evaluate()
    finally:
        env.close()
    return verdict is not None and verdict.success


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", help="demo folders, FOLDER or FOLDER:SKIN")
    parser.add_argument("--set", default="s7", choices=sorted(SETS), help="which fresh set")
    args = parser.parse_args()
    items = fresh_items(SETS[args.set])
    for spec in args.folders:
        folder, _, skin = spec.partition(":")
        with KnowledgeBase.open(Path(folder) / "kb") as kb:
            view = GraphView.load(kb)
            per = [sum(solved(kb, view, item, seed, skin or "standard") for seed in SEEDS)
                   for item in items]  # fmt: skip
        print(f"{folder} ({skin or 'standard'}): {sum(per)}/{len(per) * len(SEEDS)} {per}")
        for item, wins in zip(items, per, strict=True):
            print(f"    {wins}/{len(SEEDS)}  {item.wording}")


if __name__ == "__main__":
    main()
