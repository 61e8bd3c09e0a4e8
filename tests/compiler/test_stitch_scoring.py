"""How a stitched set of pieces is scored, on pieces made by hand: what each rule adds or
takes away, with everything else equal."""

from __future__ import annotations

from typing import Any, cast

from guigraph.compiler import stitch
from guigraph.compiler.script import Binding
from guigraph.graph.records import TextSource, Trace

ARTIST = TextSource.screen("music:id/artist")
PRICE = TextSource.screen("shop:id/price")


def _piece(app: str, **fields: Any) -> stitch._Piece:
    defaults: dict[str, Any] = {"claimed": {}, "produces": [], "consumes": []}
    trace = cast(Trace, None)  # the scoring never reads it
    return stitch._Piece(app, Binding([]), **{**defaults, **fields}, trace=trace, rank=0)


def _score(pieces: list[stitch._Piece]) -> float:
    return stitch._combo_score(pieces, {}, asks_for_a_field=False)


def test_a_read_answer_no_piece_types_costs_the_set() -> None:
    """A note "called Work with the artist of X": a set that reads the artist and
    writes some other note never gives the task what it asks for."""
    note = _piece("Notes", claimed={"note": 1.0, "work": 2.0})
    reader = _piece("Tunes", claimed={"artist": 1.0}, produces=[ARTIST], answers=True)
    plain = _piece("Tunes", claimed={"artist": 1.0}, produces=[ARTIST], answers=False)
    assert _score([reader, note]) == _score([plain, note]) - stitch.UNUSED_ANSWER_PENALTY
    # Typed by a piece, the answer costs nothing: the note fed the artist is worth more.
    fed = _piece("Notes", claimed={"note": 1.0, "work": 2.0}, consumes=[PRICE])
    assert _score([reader, fed]) > _score([reader, note]) + stitch.UNUSED_ANSWER_PENALTY


def test_a_piece_typing_a_read_value_is_a_way_of_its_own() -> None:
    """A note typing a value read elsewhere and a plain note visit the same screens and may
    explain the same words; the candidates keep both (before, the plain one stood for both,
    and the set had no piece to type the artist)."""
    plain = _piece("Notes", claimed={"note": 1.0})
    typing = _piece("Notes", claimed={"note": 1.0}, consumes=[PRICE])
    assert stitch._distinct([plain, typing]) == [plain, typing]
    assert stitch._distinct([plain, _piece("Notes", claimed={"note": 1.0})]) == [plain]


def test_a_piece_only_retyping_a_read_value_another_piece_types_repeats_it() -> None:
    """The first lyric line noted down needs no Chirp post of it beside the note."""
    lyric = TextSource.screen("music:id/lyric_0")
    reader = _piece("Tunes", produces=[lyric])
    note = _piece("Notes", consumes=[lyric], puts=frozenset({"weekend"}))
    post = _piece("Chirp", consumes=[lyric])
    assert stitch._repeating([reader, note, post], {"weekend": 1}) == [post]
    assert stitch._repeating([reader, post], {}) == []  # the only one typing it


def test_instructions_are_alike_in_what_they_ask_not_in_the_values_they_name() -> None:
    """A recorded cart run that used the task's product is no closer to "order the Atlas
    sneakers" than a purchase of another product is, once the bound values are left out."""
    from guigraph.compiler.script import ScriptStep
    from guigraph.embed.hashing import HashingEncoder
    from guigraph.graph.records import ActionTemplate
    from guigraph.types import ActionType

    def steps(recorded: str) -> list[ScriptStep]:
        tap = ActionTemplate(ActionType.CLICK, target_label=recorded)
        bound = ((recorded, "Atlas sneakers"),)
        return [ScriptStep(6, tap, None, "ShopMall", "t", replacements=bound)]

    encoder = HashingEncoder(256)
    task = "Can you order the Atlas sneakers on ShopMall?"
    cart = "Put a Atlas sneakers in the shopping cart on ShopMall"
    buy = "Buy the Orbit camera bag on ShopMall"
    whole = encoder.encode([task, cart, buy])
    assert whole[0] @ whole[1] > whole[0] @ whole[2]
    to_buy, to_cart = stitch.frame_similarities(
        encoder, [(buy, steps("Orbit camera bag")), (cart, steps("Atlas sneakers"))], task
    )
    assert to_buy > to_cart


def test_a_plan_tapping_a_thing_the_task_makes_new_costs_an_open_slot() -> None:
    """ "Add a new page theatre": a recorded run that tapped an existing page's link ("to the
    page projects") would look for "theatre" among the links; one that named the page it made
    does what the task asks."""
    from guigraph.compiler.script import ScriptStep
    from guigraph.graph.records import ActionTemplate
    from guigraph.types import ActionType

    tap = ActionTemplate(ActionType.CLICK, target_label="projects")
    found = ScriptStep(1, tap, 2, "wiki", "t1", label="theatre")
    recorded = ScriptStep(1, tap, 2, "wiki", "t1", label="projects")
    made = "Log in and add a new page theatre reading Rehearsals start at six."
    assert stitch._taps_new_things([found], made) == 1
    assert stitch._taps_new_things([recorded], made) == 0  # the recorded label, not a value
    assert stitch._taps_new_things([found], "Log in and add a line to the page theatre") == 0


def test_a_plan_that_types_the_new_thing_before_tapping_it_made_it() -> None:
    """ "Add a new page theatre": a run that typed the page's name and then tapped the link the
    screen writes it as (":theatre") named the page itself, so tapping it is no sign the page
    existed; a run that only taps the link found it."""
    from guigraph.compiler.script import ScriptStep
    from guigraph.graph.records import ActionTemplate
    from guigraph.types import ActionType

    typing = ActionTemplate(ActionType.TYPE, text="projects")
    link = ActionTemplate(ActionType.CLICK, target_label=":projects")
    typed = ScriptStep(1, typing, None, "wiki", "t1", text="Theatre")
    tapped = ScriptStep(2, link, 3, "wiki", "t1", label=":theatre")
    other = ScriptStep(1, typing, None, "wiki", "t1", text="rehearsals")
    made = "Log in and add a new page theatre reading Rehearsals start at six."
    assert stitch._taps_new_things([typed, tapped], made) == 0
    assert stitch._taps_new_things([tapped], made) == 1
    assert stitch._taps_new_things([other, tapped], made) == 1


def test_no_set_of_pieces_scores_above_the_sum_of_their_bounds() -> None:
    """The stitch search skips a set whose pieces' bounds add up to no more than the best
    score so far: that is the same search only if no set can score above its bound, what
    ever its rewards and penalties (flow fed or not, words shared, priors, marked apps)."""
    import itertools
    import random

    rng = random.Random(3)
    words = ["note", "work", "artist", "price", "send", "dana", "city"]
    sources = [ARTIST, PRICE]
    pieces = [
        _piece(
            app,
            claimed={w: rng.choice([1.0, 2.0]) for w in rng.sample(words, rng.randint(0, 4))},
            produces=rng.sample(sources, rng.randint(0, 1)),
            consumes=rng.sample(sources, rng.randint(0, 1)),
            answers=rng.random() < 0.3,
            penalty=rng.choice([0.0, 1.0]),
            prior=rng.random() * stitch.PRIOR_WEIGHT,
            puts=frozenset(rng.sample(words, rng.randint(0, 2))),
        )
        for app in ("Notes", "Tunes", "Shop", "Mail", "Chat", "Notes", "Tunes", "Shop")
    ]
    marked = frozenset({"Mail", "Chat"})
    for size in (2, 3, 4):
        for combo in itertools.combinations(pieces, size):
            score = stitch._combo_score(list(combo), {"dana": 1}, True, marked)
            missed = stitch.MISFIT_PENALTY * len(marked - {p.app for p in combo})
            bound = sum(stitch._score_bound(p) for p in combo) + stitch.SEGMENT_COST - missed
            assert score <= bound
