"""A task written in another language than the recorded ones: its names and numbers match a
recording, and which recording is what its words mean in the recordings' language."""

from __future__ import annotations

import pytest

from guigraph.envs.simphone.generalize import Item, Kind, item_task
from tests.compiler.recorded import KBView, kb_of, run_task

#: Three ways of using one product (buying it, the cart, the wishlist), and a song liked or
#: played: other recorded runs the task's names could also point to.
RECORDED = ["shop.buy", "shop.cart", "shop.wishlist", "media.like", "media.play"]
SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def kb_view(tmp_path_factory: pytest.TempPathFactory) -> KBView:
    return kb_of(tmp_path_factory.mktemp("language"), RECORDED, 30, seed=11)


def test_the_recording_is_the_one_its_words_mean_in_english(kb_view: KBView) -> None:
    # Only the verb ("compra": buy) tells buying from the cart and the wishlist, and no
    # recorded task says it: the names alone chose the cart or the wishlist (0/3 before).
    item = Item("es.shop.buy", Kind.REWORDED, "shop.buy", "Compra el {product} en ShopMall", "")
    solved = [run_task(kb_view, item_task(item, seed), seed)[0] for seed in SEEDS]
    assert all(solved), solved
