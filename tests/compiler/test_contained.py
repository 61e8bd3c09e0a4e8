"""A run that begins with every step of another run does what that run's instruction says.

"Find jazz on wikiverse.org and bookmark it": the bookmarking run ("Save the ... article on
jazz to bookmarks") first does all the finding run ("Find the article about coffee on
wikiverse.org") did. Before, the two explained the task's words equally ("find" for one,
"bookmark" for the other) and the sentence encoder's tie-break chose; with MiniLM it chose the
finding run, which never bookmarks.
"""

from __future__ import annotations

import pytest

from guigraph.compiler.contained import InnerRuns, inner_words, learn_inner_runs
from guigraph.compiler.values import ValueIndex
from guigraph.envs.simphone.generalize import Item, Kind, item_task
from guigraph.graph.records import ActionTemplate, Edge, Node, Trace
from guigraph.types import ActionType
from tests.compiler.recorded import KBView, kb_of, run_task

#: states: 1 launcher, 2 results, 3 article, 4 a pop-up, 5 the cart
NODES = {n: Node(n, app, "", "", (), None, 1, "e0") for n, app in
         [(1, "Home"), (2, "Browser"), (3, "Browser"), (4, "Browser"), (5, "Shop")]}  # fmt: skip


def _tap(label: str, role: str = "Button") -> ActionTemplate:
    return ActionTemplate(ActionType.CLICK, target_label=label, target_role=role)


class _Runs:
    """Traces over a shared set of edges, as a KB holds them."""

    def __init__(self) -> None:
        self.edges: dict[int, Edge] = {}
        self.traces: list[Trace] = []

    def edge(self, source: int, target: int, *actions: ActionTemplate) -> int:
        edge_id = len(self.edges) + 1
        self.edges[edge_id] = Edge(edge_id, source, target, actions, (), "", 1)
        return edge_id

    def run(self, said: str, nodes: tuple[int, ...], edges: tuple[int, ...],
            tail: tuple[ActionTemplate, ...] = ()) -> str:  # fmt: skip
        episode = f"e{len(self.traces)}"
        self.traces.append(Trace(episode, said, "", (), nodes, edges, len(edges), tail=tail))
        return episode

    def learned(self) -> dict[str, InnerRuns]:
        return learn_inner_runs(self.traces, self.edges, NODES, ValueIndex())


def test_a_run_that_begins_with_another_run_contains_it() -> None:
    runs = _Runs()
    open_browser = runs.edge(1, 2, _tap("Browser"))
    to_coffee = runs.edge(2, 3, _tap("Coffee", "Row"))
    find = runs.run("Find the article about coffee", (1, 2, 3), (open_browser, to_coffee))
    # Another article opened: a tap that leads to the same state is the same step.
    bookmark = runs.run(
        "Save the article on jazz to bookmarks", (1, 2, 3),
        (open_browser, runs.edge(2, 3, _tap("Jazz", "Row"))), tail=(_tap("Save"),),
    )  # fmt: skip
    learned = runs.learned()
    assert bookmark in learned and find not in learned
    assert learned[bookmark].asks == (frozenset({"find", "article", "coffee"}),)
    assert learned[bookmark].added_apps == frozenset()  # it stays in the Browser


def test_a_tap_that_stays_in_its_state_is_known_by_what_it_touched() -> None:
    """The cart run is not inside the wishlist run, though both end on the product page."""
    runs = _Runs()
    opened = runs.edge(1, 2, _tap("Browser"))
    runs.run("Add the kettle to my cart", (1, 2), (opened,), tail=(_tap("Add to cart"),))
    later = runs.run("Save the kettle for later", (1, 2), (opened,), tail=(_tap("Save for later"),))
    checkout = runs.run(
        "Buy the kettle", (1, 2, 5), (opened, runs.edge(2, 5, _tap("Add to cart"), _tap("Cart")))
    )
    learned = runs.learned()
    assert later not in learned
    assert learned[checkout].asks == (frozenset({"add", "kettle", "cart"}),)
    assert learned[checkout].added_apps == frozenset({"Shop"})


def test_a_pop_up_in_the_way_does_not_hide_the_run_inside() -> None:
    runs = _Runs()
    opened = runs.edge(1, 2, _tap("Browser"))
    runs.run(
        "Find the article about coffee", (1, 2, 3), (opened, runs.edge(2, 3, _tap("Coffee", "Row")))
    )
    into_popup = runs.edge(2, 4, _tap("Jazz", "Row"))
    accept = runs.edge(4, 3, _tap("Accept"))
    bookmark = runs.run(
        "Bookmark the jazz article",
        (1, 2, 4, 3),
        (opened, into_popup, accept),
        tail=(_tap("Save"),),
    )
    assert runs.learned()[bookmark].asks == (frozenset({"find", "article", "coffee"}),)


def test_a_run_without_steps_contains_nothing_and_is_inside_nothing() -> None:
    runs = _Runs()
    opened = runs.edge(1, 2, _tap("Browser"))
    runs.run("Open the browser", (1, 2), (opened,), tail=(_tap("Search"),))
    runs.run("Do nothing", (1,), ())
    assert runs.learned() == {}


FINDING = InnerRuns((frozenset({"find", "article", "wikiverse.org"}),), frozenset())


def test_the_inner_runs_words_explain_a_part_of_the_task_that_asks_what_they_did() -> None:
    task = "Find jazz on wikiverse.org and bookmark it"
    shared = {"save", "article", "wikiverse.org", "bookmark"}
    assert inner_words(task, shared, {"jazz"}, FINDING, set()) == {"find", "wikiverse.org"}


def test_a_run_adding_only_the_name_of_an_app_its_inner_run_works_in_adds_nothing() -> None:
    """The checkout run contains the cart run; naming ShopMall asks for neither more."""
    cart = InnerRuns((frozenset({"add", "cart"}),), frozenset())
    task = "Look up the Nova watch on ShopMall and add it to my cart"
    assert inner_words(task, {"buy", "shopmall"}, {"nova", "watch"}, cart, {"shopmall"}) == set()
    assert inner_words(task, {"buy", "shopmall"}, {"nova", "watch"}, cart, set()) == {"add", "cart"}
    # A recorded run that bought this very product says its name: a value, not a part.
    bought = {"buy", "nova", "watch", "shopmall"}
    assert inner_words(task, bought, {"nova", "watch"}, cart, {"shopmall"}) == set()


def test_no_word_is_explained_for_a_task_in_one_part_or_a_run_that_adds_nothing_asked() -> None:
    taking = InnerRuns((frozenset({"take", "photo"}),), frozenset())
    one_part = "Share the newest photo in the Gallery with Emeka"
    assert inner_words(one_part, {"share", "gallery"}, {"emeka"}, taking, set()) == set()
    # The finding run itself, or a run explaining only what its inner run says.
    task = "Find jazz on wikiverse.org and bookmark it"
    assert inner_words(task, {"find", "wikiverse.org"}, {"jazz"}, FINDING, set()) == set()
    assert inner_words(task, {"save"}, {"jazz"}, None, set()) == set()


RECORDED = ("shop.bookmark", "shop.article", "info.note")
#: World seeds of this small KB's topics (3401 asks for "volcanoes", a topic its 40 runs
#: never searched, and its binding keeps the recorded search: a failure of another kind).
SEEDS = (3402, 3403, 3404, 3407, 3409)


@pytest.fixture(scope="module")
def kb_view(tmp_path_factory: pytest.TempPathFactory) -> KBView:
    return kb_of(tmp_path_factory.mktemp("contained"), RECORDED, 40, seed=6)


def _item(wording: str) -> Item:
    return Item("test.bookmark#0", Kind.REWORDED, "shop.bookmark", wording, "")


@pytest.mark.slow
def test_find_and_bookmark_follows_the_run_that_does_both(kb_view: KBView) -> None:
    item = _item("Find {topic} on {site} and bookmark it")
    solved = [run_task(kb_view, item_task(item, seed), seed)[0] for seed in SEEDS]
    assert all(solved), solved


@pytest.mark.slow
def test_without_the_inner_runs_the_finding_run_can_win(
    kb_view: KBView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured: seed 3403 ("Find coffee on dailyfacts.net and bookmark it") then follows a
    finding run, which never bookmarks."""
    monkeypatch.setattr(kb_view[1], "inner_runs", {})
    item = _item("Find {topic} on {site} and bookmark it")
    assert not run_task(kb_view, item_task(item, 3403), 3403)[0]
