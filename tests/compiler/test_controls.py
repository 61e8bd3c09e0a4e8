"""Words a recorded run's controls show explain a task that no recorded instruction words so.

Every recorded run that saved an item for later said "save it for later" or "add it to my
saved items", and tapped the control ``shop:id/add_to_wishlist``; "put it on my wishlist"
shares no word with any of them, and before, the cart run ("Put a ... in the shopping cart")
won on the word "put" and added the item to the cart.
"""

from __future__ import annotations

import pytest

from guigraph.compiler.controls import learn_control_words
from guigraph.envs.simphone.generalize import Item, Kind, item_task
from guigraph.graph.records import ActionTemplate, Edge, Node, Trace
from guigraph.types import ActionType
from tests.compiler.recorded import KBView, kb_of, run_task


def _node(node_id: int, app: str) -> Node:
    return Node(node_id, app, "", "", (), None, 1, "e0")


def _tap(label: str, rid: str = "") -> ActionTemplate:
    return ActionTemplate(ActionType.CLICK, target_label=label, target_id=rid)


def _learned(
    taps: dict[int, ActionTemplate], said: str = "", tail: tuple[ActionTemplate, ...] = ()
) -> dict[str, str]:
    nodes = {1: _node(1, "Shop"), 2: _node(2, "Shop"), 3: _node(3, "Notes"), 4: _node(4, "Notes")}
    edges = {
        n: Edge(n, n, n + 1 if n in (1, 3) else n, (tap,), (), tap.target_label, 1)
        for n, tap in taps.items()
    }
    trace = Trace("e0", said, "", ("Shop",), (1, 2), (1,), 2, tail=tail)
    return learn_control_words([trace], edges, nodes)


def test_a_control_word_of_one_app_that_no_instruction_says_is_learned() -> None:
    learned = _learned({1: _tap("Save for later", "shop:id/add_to_wishlist")})
    assert learned["wishlist"] == "Shop"
    assert learned["later"] == "Shop"


def test_words_recorded_instructions_say_are_not_learned_again() -> None:
    learned = _learned(
        {1: _tap("Save for later", "shop:id/add_to_wishlist")}, said="Save the kettle for later"
    )
    assert "later" not in learned and "save" not in learned
    assert learned["wishlist"] == "Shop"


def test_a_control_word_shown_in_two_apps_says_nothing_of_which() -> None:
    learned = _learned({1: _tap("Save", "shop:id/save"), 3: _tap("Save", "notes:id/save")})
    assert "save" not in learned


def test_the_last_actions_of_a_run_count_and_pop_up_buttons_do_not() -> None:
    """A run's last taps are in its tail, not an edge (the wishlist tap ends its run)."""
    learned = _learned({}, tail=(_tap("Save for later", "shop:id/add_to_wishlist"),))
    assert learned["wishlist"] == "Shop"
    assert "thanks" not in _learned({1: _tap("No thanks", "shop:id/promo_dismiss")})


RECORDED = ("shop.wishlist", "shop.cart", "shop.buy", "info.note")
SEEDS = (3301, 3302, 3303, 3304)


@pytest.fixture(scope="module")
def kb_view(tmp_path_factory: pytest.TempPathFactory) -> KBView:
    return kb_of(tmp_path_factory.mktemp("controls"), RECORDED, 40, seed=6)


def _item(wording: str) -> Item:
    return Item("test.wishlist#0", Kind.REWORDED, "shop.wishlist", wording, "")


@pytest.mark.slow
def test_a_wishlist_task_follows_the_run_whose_control_shows_the_word(kb_view: KBView) -> None:
    item = _item("Put the {product} on my wishlist")
    assert "wishlist" in kb_view[1].control_words
    solved = [run_task(kb_view, item_task(item, seed), seed)[0] for seed in SEEDS]
    assert all(solved), solved


@pytest.mark.slow
def test_without_the_controls_words_the_same_task_fails(
    kb_view: KBView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The evidence is the controls' words alone: with them taken away, another run wins."""
    monkeypatch.setattr(kb_view[1], "control_words", {})
    item = _item("Put the {product} on my wishlist")
    solved = [run_task(kb_view, item_task(item, seed), seed)[0] for seed in SEEDS]
    assert sum(solved) <= 1, solved  # measured 1 of 4 (the cart run wins the others)
