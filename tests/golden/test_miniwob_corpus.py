"""The golden corpus's MiniWoB++ world (``tests/golden/miniwob``): no held case may be lost.

Development cases of every task the MiniWoB++ bench demonstrated (``bench/eval_web.py``: the
KB its recorded demonstrations built, stripped of what planning never reads), two seeds per
task from ``DEV_SEED_BASE``: never a seed the reported figure is measured on, nor a
demonstration's. Each case is the utterance the task's page wrote for its seed, the fields of
it the task's demonstrations put in (the miniwob package's field extractors), the task's page
as its app and its recordings as donors, and the screen the episode starts on: the plan is
judged as the policy starts it there, under the web's conventions. No browser runs here;
``bench/corpus.py make-miniwob`` drew the utterances and screens once, in headless Chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from guigraph.envs.conventions import WEB
from guigraph.errors import ConfigError
from guigraph.eval import corpus
from guigraph.eval.world_demo import (
    DEMO_SEED_BASE,
    DEV_SEED_BASE,
    EVAL_SEED_BASE,
    WorldDemoConfig,
)
from tests.golden.held import assert_held

WOB = Path(__file__).resolve().parent / "miniwob"
#: The bench run the KB is from evaluated 20 seeds per task (5 for its baselines).
BENCH_SEEDS = 20


@pytest.fixture(scope="module")
def outcomes() -> list[corpus.Outcome]:
    return corpus.run_folder(WOB)


def test_no_plan_case_held_is_lost(outcomes: list[corpus.Outcome]) -> None:
    assert_held(outcomes)


def test_no_case_is_an_evaluation_seed_or_a_demonstrations() -> None:
    """Evaluation seeds start at ``EVAL_SEED_BASE`` (however many a run takes), the
    demonstrations' at 0 (at most ``WorldDemoConfig``'s 10 per task): the cases sit between."""
    seeds = {c.seed for c in corpus.load_plan_cases(WOB)}
    assert seeds.isdisjoint(range(EVAL_SEED_BASE, EVAL_SEED_BASE + BENCH_SEEDS))
    assert all(DEV_SEED_BASE <= seed < EVAL_SEED_BASE for seed in seeds)
    with pytest.raises(ConfigError):
        WorldDemoConfig(demos=11)
    assert seeds.isdisjoint(range(DEMO_SEED_BASE, DEMO_SEED_BASE + 10))


def test_every_demonstrated_task_has_cases_on_its_own_page() -> None:
    cases = corpus.load_plan_cases(WOB)
    templates = corpus.load_templates(WOB)
    screens = corpus.load_screens(WOB)
    assert {c.template for c in cases} == set(templates.values())
    for case in cases:
        assert case.source == "miniwob:dev"
        assert case.apps == (case.template,) and case.donors == ((case.template,),)
        assert screens[case.case_id].app == case.template and screens[case.case_id].elements
    per_task = {t: sum(c.template == t for c in cases) for t in templates.values()}
    assert set(per_task.values()) == {2}


def test_miniwob_is_planned_under_the_webs_conventions() -> None:
    world = corpus.load_world(WOB)
    assert world == corpus.CorpusWorld("miniwob", "final7")
    assert corpus.world_conventions(world.world) is WEB
