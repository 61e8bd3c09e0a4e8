"""A person doing the DokuWiki task file's workflows (``dokuwiki_tasks.toml``) in a browser
being recorded, with real input (``envs.web.cdp_person``): log in, create a page, append a
line, add a user, search and open a page. ``demonstrate`` records one demonstration.

The person finds things as a person does, by what they read (a link's text, a field's label),
and is not a script: by the demonstration's seed they hesitate, slip while typing and correct
it, or click beside what they meant before clicking it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from guigraph.envs.web.cdp_person import Person, connected, recorder
from guigraph.envs.web.dokuwiki import ADMIN_LOGIN

WORKFLOWS = ("create_page", "append_line", "add_user", "search_open")


def demonstrate(
    base_url: str,
    workflow: str,
    values: Mapping[str, str],
    instruction: str,
    password: str,
    out: Path,
    seed: int,
) -> None:
    """Record one demonstration of ``workflow`` with ``values`` into the folder ``out``."""
    do = _STEPS[workflow]
    rng = random.Random(f"{workflow}/{seed}")
    with recorder(f"{base_url}/doku.php?id=start", instruction, out) as run:  # noqa: SIM117
        with connected(run.port, "id=start") as page:  # the recorder is up before this
            do(Person(page, rng=rng), values, password, rng)


def _log_in(person: Person, password: str, rng: random.Random) -> None:
    page = person.page
    person.click(page.get_by_role("link", name="Log In"), waits_for_page=True)
    person.click(page.get_by_label("Username"))
    person.type(ADMIN_LOGIN, slip=rng.random() < 0.3)
    person.click(page.get_by_label("Password"))
    person.type(password)
    person.key("Enter", waits_for_page=True)


def _search(person: Person, words: str, slip: bool) -> None:
    page = person.page
    person.click(page.locator("#qsearch__in"))
    person.type(words, slip=slip)
    person.key("Enter", waits_for_page=True)


def _create_page(
    person: Person, values: Mapping[str, str], password: str, rng: random.Random
) -> None:
    page = person.page
    _log_in(person, password, rng)
    if rng.random() < 0.4:
        person.hesitate()
    _search(person, values["page"], slip=rng.random() < 0.3)
    # The search offers to create the page named after the query.
    person.click(page.locator(f"a.wikilink2[href*='id={values['page']}']"), waits_for_page=True)
    if rng.random() < 0.4:
        person.click_beside(1200, 700)  # an extra click on nothing
    person.click(page.locator("#wiki__text"))
    person.type(values["text"], slip=rng.random() < 0.3)
    person.click(page.get_by_role("button", name="Save"), waits_for_page=True)


def _append_line(
    person: Person, values: Mapping[str, str], password: str, rng: random.Random
) -> None:
    page = person.page
    _log_in(person, password, rng)
    person.click(
        page.locator("#dokuwiki__content").get_by_role("link", name=values["page"], exact=True),
        waits_for_page=True,
    )
    if rng.random() < 0.4:
        person.hesitate()
    person.click(page.get_by_role("link", name="Edit this page"), waits_for_page=True)
    person.click(page.locator("#wiki__text"))
    person.key("Control+End")
    person.type("\n" + values["line"], slip=rng.random() < 0.3)
    if rng.random() < 0.4:
        person.click_beside(1200, 700)
    person.click(page.get_by_role("button", name="Save"), waits_for_page=True)


def _add_user(person: Person, values: Mapping[str, str], password: str, rng: random.Random) -> None:
    page = person.page
    _log_in(person, password, rng)
    person.click(page.get_by_role("link", name="Admin"), waits_for_page=True)
    person.click(page.get_by_role("link", name="User Manager"), waits_for_page=True)
    person.wheel(600)  # the form to add a user is below the list of users
    fields = [
        ("add_userid", values["login"]),
        ("add_userpass", password),
        ("add_userpass2", password),
        ("add_username", values["name"]),
        ("add_usermail", values["email"]),
        ("add_usergroups", values["group"]),
    ]
    for field_id, text in fields:
        person.click(page.locator(f"#{field_id}"))
        person.type(text, slip=text != password and rng.random() < 0.15)
    if rng.random() < 0.4:
        person.hesitate()
    person.click(page.locator("button[name='fn[add]']"), waits_for_page=True)


def _search_open(
    person: Person, values: Mapping[str, str], password: str, rng: random.Random
) -> None:
    page = person.page
    if rng.random() < 0.4:
        person.click_beside(1200, 700)
    _search(person, values["page"], slip=rng.random() < 0.3)
    hit = page.locator("div.search_quickresults, .search_quickhits").get_by_role(
        "link", name=values["page"], exact=True
    )
    person.click(hit.first, waits_for_page=True)


_STEPS: dict[str, Callable[[Person, Mapping[str, str], str, random.Random], Any]] = {
    "create_page": _create_page,
    "append_line": _append_line,
    "add_user": _add_user,
    "search_open": _search_open,
}
