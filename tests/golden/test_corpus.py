"""The golden corpus (``guigraph.eval.corpus``): the compiler may gain cases, never lose one.

Every wording the benchmarks and the binding tests use is a case with what a right plan does;
each records whether the code that wrote it held the case on this KB (``held``). The KB is the
demo's (``guigraph demo``: 300 episodes, seed 11, hashing:256), stripped of what planning never
reads (screenshots, the state index). ``bench/corpus.py run tests/golden`` prints the same on
any demo folder, and ``--record`` writes a KB's outcomes once a change holds more.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from guigraph.eval import corpus
from tests.golden.held import assert_held

GOLDEN = Path(__file__).resolve().parent
LABEL = "seed11"


@pytest.fixture(scope="module")
def plan_outcomes() -> list[corpus.Outcome]:
    assert corpus.load_world(GOLDEN) == corpus.CorpusWorld("simphone", LABEL)
    return corpus.run_folder(GOLDEN)


def test_no_plan_case_held_is_lost(plan_outcomes: list[corpus.Outcome]) -> None:
    assert_held(plan_outcomes)


@pytest.mark.parametrize("source", ["seen", "dev"])
def test_a_lower_cased_task_holds_as_its_written_form(
    plan_outcomes: list[corpus.Outcome], source: str
) -> None:
    """Speech-to-text: the demo's seen tasks in their recorded wording, and the development
    half's reworded and recorded wordings, all in lower case, plan within 0.03 of the same
    wordings as written. A lower-cased plan counts only if it types what the written one
    types, capitals and all: the world checks "book a table" as the task gives it, so a
    reminder typed "Book a table" (capitals given back at a sentence's start) fails there."""
    by_id = {o.case_id: o for o in plan_outcomes}
    pairs = [
        (written.passed, lowered.passed and (not written.passed or lowered.typed == written.typed))
        for case_id, written in by_id.items()
        if case_id.startswith(f"{source}/")
        and (lowered := by_id.get(f"lower:{case_id}")) is not None
    ]
    assert len(pairs) >= 90
    written_sr, lowered_sr = (sum(p[k] for p in pairs) / len(pairs) for k in (0, 1))
    assert lowered_sr >= written_sr - 0.03, (written_sr, lowered_sr)


def test_no_slot_case_held_is_lost() -> None:
    outcomes = corpus.run_slot_cases(corpus.load_slot_cases(GOLDEN))
    assert_held(outcomes, gains_too=False)


def test_a_case_that_does_other_apps_or_other_values_fails() -> None:
    """The judge itself: apps in order, every value put in, one of the donor sets."""
    case = corpus.PlanCase(
        "t", "dev", "Text Dana the weather in Rome", "x", 0, {"city": "Rome", "contact": "Dana"},
        ("Weather", "Messages"), (("info.weather", "social.message"),),
    )  # fmt: skip
    right = corpus.PlanSignature(
        ("Weather", "Messages"), ("social.message", "info.weather"), ("Rome", "{text1}"),
        ("Weather", "Dana"),
    )  # fmt: skip
    assert corpus.judge(case, right).passed
    other_city = corpus.PlanSignature(right.apps, right.donors, ("Paris",), right.labels)
    assert "values not put in" in corpus.judge(case, other_city).why
    reversed_apps = corpus.PlanSignature(
        ("Messages", "Weather"), right.donors, right.typed, right.labels
    )
    assert not corpus.judge(case, reversed_apps).passed
    other_donors = corpus.PlanSignature(right.apps, ("multi.x",), right.typed, right.labels)
    assert "follows" in corpus.judge(case, other_donors).why


def test_a_number_is_put_in_as_as_many_taps_of_one_control_in_a_row() -> None:
    """A number a plan puts in as taps ("Select -8 with the spinner": eight taps of one arrow)
    is as many taps of the same element in a row: not seven, nor eight split between two
    elements of the same label."""
    from guigraph.graph.records import ActionTemplate
    from guigraph.types import ActionType

    def tap(label: str, point: tuple[float, float]) -> ActionTemplate:
        return ActionTemplate(ActionType.CLICK, target_label=label, point=point)

    up, down = tap(".ui-button", (900, 380)), tap(".ui-button", (900, 400))
    submit = tap("Submit", (300, 500))
    case = corpus.PlanCase(
        "t", "dev", "Select -8 with the spinner", "x", 0, {"target": "-8"}, ("x",), ()
    )  # fmt: skip

    def plan(taps: list[ActionTemplate]) -> corpus.PlanSignature:
        labels = tuple(t.target_label for t in taps)
        return corpus.PlanSignature(("x",), (), (), labels, repeats=corpus.repeats(taps))

    assert corpus.judge(case, plan([down] * 8 + [submit])).passed
    assert not corpus.judge(case, plan([down] * 7 + [submit])).passed
    assert not corpus.judge(case, plan([up] * 4 + [down] * 4 + [submit])).passed
    assert not corpus.judge(case, plan([submit])).passed
    # one tap, or none, is no count: "1" and "0" are only ever put in as labels or text
    assert not plan([down, submit]).uses("1")
    assert plan([tap("1", (10, 10))]).uses("1")
