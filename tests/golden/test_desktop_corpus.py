"""The golden corpus's desktop world (``tests/golden/desktop``): no held case may be lost.

Every episode of the desktop bench's development part (``bench/desktop.py --part dev``: each
task on new values at the seeds from ``DEV_SEED_BASE``; never the reported, frozen part at
``EVAL_SEED_BASE``), judged on the plan alone like SimPhone's: the apps a right plan works
in, the workflow it follows and the values it types. The KB is a ``bench/desktop.py`` run's
(six recorded demonstrations per task), stripped of what planning never reads; plans are made
under the desktop's conventions, as the bench's episodes are. ``bench/corpus.py run
tests/golden/desktop`` prints the same, ``--record`` writes a gain; ``make-desktop`` rewrites
the cases from a run.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from guigraph.envs.desktop import tasks
from guigraph.envs.desktop.conventions import DESKTOP
from guigraph.eval import corpus
from guigraph.eval.world_demo import EVAL_SEED_BASE
from tests.golden.held import assert_held

DESK = Path(__file__).resolve().parent / "desktop"
BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def outcomes() -> list[corpus.Outcome]:
    return corpus.run_folder(DESK)


def test_no_plan_case_held_is_lost(outcomes: list[corpus.Outcome]) -> None:
    assert_held(outcomes)


def _dev_seed_base() -> int:
    sys.path.insert(0, str(BENCH))
    try:
        import desktop
    finally:
        sys.path.remove(str(BENCH))
    return int(desktop.DEV_SEED_BASE)


def test_the_cases_are_the_development_part_only() -> None:
    """Every task on the bench's six development seeds, each the bench's own draw of new
    values; no case is at a frozen seed or has a frozen episode's wording (both parts draw
    from the held-out values, so one development draw that repeats a frozen one is left out)."""
    cases = corpus.load_plan_cases(DESK)
    base = _dev_seed_base()
    assert {c.source for c in cases} == {"desktop:dev"}
    assert {c.template for c in cases} == set(tasks.TEMPLATES)
    assert all(base <= c.seed < base + 6 for c in cases)
    frozen = set()
    for name in tasks.TEMPLATES:
        for seed in range(EVAL_SEED_BASE, EVAL_SEED_BASE + 6):
            task = tasks.make(name + tasks.NEW_VALUES, seed)
            assert task is not None
            frozen.add(task.instruction)
    for case in cases:
        drawn = tasks.make(case.template + tasks.NEW_VALUES, case.seed)
        assert drawn is not None and drawn.instruction == case.instruction
        assert case.instruction not in frozen, case.case_id
        assert case.values and all(drawn.params[s] == v for s, v in case.values.items())
    assert len(cases) >= len(tasks.TEMPLATES) * 6 - 2
    assert all(c.donors == ((c.template,),) for c in cases)
    assert set(corpus.load_templates(DESK).values()) == set(tasks.TEMPLATES)


def test_a_value_the_workflow_does_not_type_is_not_expected() -> None:
    """An open file is named in the wording and never typed (Save a copy of X: X is open);
    the file a copy is saved as is."""
    case = next(c for c in corpus.load_plan_cases(DESK) if c.template == "mousepad/save-copy")
    assert set(case.values) == {"copy"}


def test_a_plan_that_types_another_value_fails() -> None:
    """The cases judge the values: the same plan against another draw's values fails."""
    cases = corpus.load_plan_cases(DESK)
    first, second = [c for c in cases if c.template == "mousepad/save-note"][:2]
    swapped = replace(first, values=second.values, held={})
    (outcome,) = corpus.run_on_kb(
        DESK, [swapped], DESK / corpus.KB_FOLDER, corpus.load_templates(DESK), "desk9"
    )
    assert not outcome.passed and "values not put in" in outcome.why


def test_the_desktop_is_planned_under_its_own_conventions() -> None:
    world = corpus.load_world(DESK)
    assert world == corpus.CorpusWorld("desktop", "desk9")
    assert corpus.world_conventions(world.world) is DESKTOP
