"""A pop-up over the screen a plan reads a value off: the team closes it before it leaves.

Measured on SimPhone: in world 5102 a cookie banner covers the article "Please email Hiro the
title of the dailyfacts.net article on comets" opens; the plan's next step is a press of the
home key, which needs no element, so before this the team pressed it at once, never saw the
title, and could not fill the mail's subject."""

from __future__ import annotations

import pytest

from guigraph.envs.simphone.generalize import Item, Kind, item_task

from .recorded import KBView, kb_of, run_task

WORDING = "Please email {contact} the title of the {site} article on {topic}"


@pytest.fixture(scope="module")
def kb_view(tmp_path_factory: pytest.TempPathFactory) -> KBView:
    return kb_of(tmp_path_factory.mktemp("popup"), ["multi.article_mail"], 20, seed=6)


@pytest.mark.slow
def test_a_banner_over_the_article_is_closed_before_the_plan_leaves_it(kb_view: KBView) -> None:
    item = Item("test.article_mail#0", Kind.REWORDED, "multi.article_mail", WORDING, "")
    task = item_task(item, 5102)
    assert "comets" in task.instruction
    solved, result = run_task(kb_view, task, 5102)
    assert solved, [s.narrative for s in result.steps]
    reasons = [s.executed.reason for s in result.steps]
    assert "dismiss the pop-up" in reasons
