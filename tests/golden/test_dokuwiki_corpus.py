"""The golden corpus's DokuWiki world (``tests/golden/dokuwiki``): no held case may be lost.

Every case of the DokuWiki bench's development splits (new values, new wordings; never the
frozen one) for its four workflows, judged on the plan alone like SimPhone's: the workflow a
right plan follows and the values it puts in. The KB is a ``bench/dokuwiki.py`` run's (six
person recordings per workflow), stripped of what planning never reads; plans are made under
the web's conventions, as the bench's episodes are. ``bench/corpus.py run tests/golden/dokuwiki``
prints the same, ``--record`` writes a gain; ``make-dokuwiki`` rewrites the cases from a run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from guigraph.envs.conventions import WEB
from guigraph.envs.web.dokuwiki_values import DEVELOPMENT, WORKFLOWS
from guigraph.errors import ConfigError
from guigraph.eval import corpus
from tests.golden.held import assert_held

WIKI = Path(__file__).resolve().parent / "dokuwiki"


@pytest.fixture(scope="module")
def outcomes() -> list[corpus.Outcome]:
    return corpus.run_folder(WIKI)


def test_no_plan_case_held_is_lost(outcomes: list[corpus.Outcome]) -> None:
    assert_held(outcomes)


def test_the_cases_are_every_workflow_on_the_development_splits_only() -> None:
    """Four workflows by two splits, 8 cases each; a wording of the frozen split never
    enters: only the development splits are sources."""
    cases = corpus.load_plan_cases(WIKI)
    assert {c.source for c in cases} == {f"dokuwiki:{split}" for split in DEVELOPMENT}
    assert {c.template for c in cases} == set(WORKFLOWS)
    assert len(cases) == len(WORKFLOWS) * len(DEVELOPMENT) * 8
    templates = corpus.load_templates(WIKI)
    assert all(c.donors == ((c.template,),) and c.values for c in cases)
    assert set(templates.values()) == set(WORKFLOWS)


def test_the_wiki_is_planned_under_the_webs_conventions() -> None:
    world = corpus.load_world(WIKI)
    assert world == corpus.CorpusWorld("dokuwiki", "wiki6")
    assert corpus.world_conventions(world.world) is WEB


def test_a_world_file_without_a_label_names_the_file_and_the_field(tmp_path: Path) -> None:
    (tmp_path / corpus.WORLD_FILE).write_text('{"world": "dokuwiki"}')
    with pytest.raises(ConfigError, match=r"world\.json: field 'label' expected"):
        corpus.load_world(tmp_path)
    (tmp_path / corpus.WORLD_FILE).write_text("{not json")
    with pytest.raises(ConfigError, match="not JSON"):
        corpus.load_world(tmp_path)
