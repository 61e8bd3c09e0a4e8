"""DokuWiki's demonstration and evaluation values: pages, lines, users and the wordings no
demonstration used (``dokuwiki_wordings.toml``), for ``guigraph demo --world dokuwiki`` and
``bench/dokuwiki.py``. Case 0-5 are the demonstrations, then 8 cases per evaluation split."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from guigraph.envs.web.dokuwiki import TASKS

WORKFLOWS = ("create_page", "append_line", "add_user", "search_open")
NAMES = ["Olga Park", "Hiro Tanaka", "Dana Weiss", "Pablo Ruiz", "Mina Okafor", "Tomas Berg",
         "Lena Fischer", "Omar Haddad", "Sara Lind", "Ivan Petrov", "Aiko Mori", "Nora Quinn",
         "Raul Ortega", "Eva Novak", "Kofi Mensah", "Lucia Romano", "Jonas Weber", "Maya Cohen",
         "Felix Braun", "Ines Duarte", "Yusuf Demir", "Clara Holm", "Tariq Aziz", "Helga Lund",
         "Marco Bianchi", "Sofia Lopez", "Erik Dahl", "Amara Obi", "Piotr Nowak",
         "Rosa Marin"]  # fmt: skip
TEXTS = ["Water the tomatoes daily.", "Bake at 180 degrees.", "Bring a map and water.",
         "The club meets on Fridays.", "Return books within a month.", "Tickets cost five euros.",
         "Glaze before the second firing.", "Check the tyres every week.",
         "The telescope is in room 4.", "Use thin layers of paint.", "Start with a simple scarf.",
         "Always check the knots twice.", "Wind is strongest after noon.",
         "Let the dough rest overnight.", "Read one poem every morning.",
         "Hooks are in the blue box.", "Breathe slowly and stretch.", "Rehearsals start at six.",
         "Pack a warm sleeping bag.", "Wax the board before going out.",
         "Binoculars are by the door.", "Lessons are on Tuesday evenings.",
         "Feed the fish twice a day.", "Keep the clay wet.", "Meet at the north gate.",
         "Sharpen the chisels first.", "Prune the roses in March.", "Bring your own cup.",
         "The hall opens at nine.", "Label every jar."]  # fmt: skip
NEW_PAGES = ["garden", "recipes", "hiking", "chess", "library", "cinema", "pottery", "cycling",
             "astronomy", "painting", "knitting", "climbing", "sailing", "baking", "poetry",
             "fishing", "yoga", "theatre", "camping", "surfing", "birding", "dancing",
             "aquarium", "ceramics", "orienteering", "woodwork", "lanterns", "archery", "choir",
             "pantry"]  # fmt: skip
LINES = ["Call the printer repair service.", "Order more coffee.", "Book the train to Lyon.",
         "Review the quarterly numbers.", "Plan the summer party.", "Tune the old piano.",
         "Renew the domain name.", "Clean the fridge on Friday.", "Update the team photo.",
         "Send the invoices to Marta.", "Buy new chairs for room 2.", "Archive the old tickets.",
         "Fix the broken lamp.", "Invite the new interns.", "Move the server rack.",
         "Print the safety posters.", "Check the fire alarm.", "Water the office plants.",
         "Replace the whiteboard pens.", "Collect the parking badges.", "Test the backup disk.",
         "Write the holiday rota.", "Return the rented projector.", "Order new name tags.",
         "Empty the recycling bins.", "Sort the mail on Monday.", "Call the landlord.",
         "Refill the first aid kit.", "Book the meeting room.",
         "Thank the volunteers."]  # fmt: skip
EXISTING = ["projects", "meetings", "travel", "budget", "events", "music", "sports", "kitchen",
            "office", "finance", "marketing", "support"]  # fmt: skip
GROUPS = ["editors", "reviewers", "authors", "admins", "guests", "writers"]
#: Wordings no demonstration used (the task file's own are the demonstrated ones): the
#: ``development`` set guides work, the ``frozen`` one is run only for the reported figure.
WORDINGS = Path(TASKS).with_name("dokuwiki_wordings.toml")
#: Evaluation splits: the task file's wordings with new values, then the two sets of new
#: wordings (each with values of its own).
SPLITS = ("new_values", "new_wordings", "frozen_wordings")
#: The splits work may look at (the golden corpus holds them): all but the frozen one.
DEVELOPMENT = ("new_values", "new_wordings")
#: The first case index of each split (0-5 are the demonstrations).
FIRST_CASE = {"new_values": 6, "new_wordings": 14, "frozen_wordings": 22}


def values_for(workflow: str, index: int, round_: int = 0) -> dict[str, str]:
    """The values of case ``index`` (0-5 demonstrations, then ``FIRST_CASE`` of each split,
    8 cases each) in evaluation round ``round_`` (one per memory): never the same value in two
    cases where the wiki keeps what a case did (a page created, a user added)."""
    mark = str(round_ + 1) if round_ else ""
    if workflow == "create_page":
        return {"page": NEW_PAGES[index] + mark, "text": TEXTS[index]}
    if workflow == "append_line":
        return {"page": EXISTING[index % len(EXISTING)], "line": LINES[index]}
    if workflow == "add_user":
        name = NAMES[index]
        login = name.split()[0].lower() + mark
        email = f"{name.replace(' ', '.').lower()}{mark}@example.org"
        return {"login": login, "name": name, "email": email, "group": GROUPS[index % 6]}
    return {"page": EXISTING[(index * 5) % len(EXISTING)]}


def wording(
    own: Sequence[str], wordings: dict[str, Any], workflow: str, split: str, index: int
) -> str:
    """Case ``index``'s wording: the task file's own for new values, else the split's set
    (the development set has four per workflow, each taken twice)."""
    if split == "new_values":
        return own[index % len(own)]
    chosen = wordings["development" if split == "new_wordings" else "frozen"][workflow]
    return str(chosen[index % len(chosen)])


def load_wordings() -> dict[str, Any]:
    return tomllib.loads(WORDINGS.read_text(encoding="utf-8"))
