"""A stitched plan does what the task asks and nothing beside it.

The logs hold temperature notes, photos taken and sent to a contact, articles emailed and
plain emails. "Send it to X by email" after reading a temperature is an email to X: the photo
share whose donor said "send it to X", and a text to X that would also type the value, put X a
second time for a task that names X once, and a plan must leave them out. (Before, a photo
went to X beside the email: the task checker passed it, the user would not.)
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from guigraph.envs.simphone.generalize import Half, Item, Kind, item_task, packaged
from guigraph.envs.simphone.pairings import PAIRINGS, READINGS, USES, pairing_template
from tests.compiler.recorded import KBView, kb_of, run_task

RECORDED = ("multi.weather_note", "multi.photo_share", "multi.article_mail", "social.mail")
SEEDS = (3201, 3202, 3203, 3204)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kb_view(tmp_path_factory: pytest.TempPathFactory) -> KBView:
    return kb_of(tmp_path_factory.mktemp("actions"), RECORDED, 60, seed=5)


def test_a_value_sent_once_is_sent_once_in_the_app_the_task_names(kb_view: KBView) -> None:
    pairing = next(i for i in packaged().half(Half.DEV) if i.item_id == "pair.temperature_mail#1")
    # Its wording with the recorded word for the value: "how warm" is a synonym no run shows.
    item = replace(
        pairing, wording="Check the temperature in {city} and send it to {contact} by email"
    )
    solved, both = [], []
    for seed in SEEDS:
        success, result = run_task(kb_view, item_task(item, seed), seed)
        solved.append(success)
        both.append({"Gallery", "Mail"} <= {step.app for step in result.steps})
    # Measured 3/4: with no recorded email that types a read value, one plan shares a photo.
    assert sum(solved) >= 3, solved
    assert not any(both), both  # never a photo share beside the email


NOTE_MAIL_RECORDED = ("multi.note_message", "social.mail", "multi.article_mail")


@pytest.fixture(scope="module")
def note_mail_kb(tmp_path_factory: pytest.TempPathFactory) -> KBView:
    return kb_of(tmp_path_factory.mktemp("note_mail"), NOTE_MAIL_RECORDED, 60, seed=5)


def test_a_read_value_goes_by_the_app_the_task_marks(
    note_mail_kb: KBView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every recorded note's text was texted; this task says "email", which every recorded
    use of Mail says. The recorded note-to-message trace explains more of the words, but it
    texts: a trace that never opens the app the task marks is no recorded way of doing the
    task, so the note's reading and an email are stitched instead."""
    template = pairing_template(
        "test.note_mail", READINGS["note_body"], USES["mail"],
        ("Open the note {note} and email what it says to {contact}",),
    )  # fmt: skip
    monkeypatch.setitem(PAIRINGS, template.template_id, template)
    item = Item("test.note_mail#0", Kind.PAIRING, template.template_id, template.phrasings[0], "")
    solved = [run_task(note_mail_kb, item_task(item, seed), seed)[0] for seed in SEEDS]
    # 0/4 before. One of them also needs retrieval to offer, beside the plain emails most like
    # the task (whose subject it cannot fill), the email that typed an article's title: the
    # same screens of Mail, another way of working in them (``GraphView.traces_using``).
    assert all(solved), solved
