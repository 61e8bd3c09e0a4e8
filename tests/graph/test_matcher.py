"""The state index and the dual check, on hand-made descriptors."""

from __future__ import annotations

import numpy as np
import pytest

from guigraph.graph import matcher
from guigraph.graph.matcher import (
    DualThresholdVerifier,
    MatchSettings,
    StateDescriptor,
    StateIndex,
    structure_vectors,
)
from guigraph.graph.screen import VISUAL_DIM

TEXT_DIM = 64


def unit(seed: int, dim: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def dialog(app: str, visual_seed: int = 0, from_ui: bool = True) -> StateDescriptor:
    text = structure_vectors(
        [["button:dismiss", "button:rate_now", "textview:dialog_title"]], TEXT_DIM
    )[0]
    return StateDescriptor("dialog", text, unit(visual_seed, VISUAL_DIM), app, from_ui=from_ui)


def test_same_dialog_in_many_apps_does_not_crowd_out_the_right_app() -> None:
    index = StateIndex(TEXT_DIM, 0.5)
    for node in range(1, 13):
        index.add(node, dialog(f"app{node}"))
    found = index.search(dialog("app12"), k=4)
    assert [c.node_id for c in found] == [12]
    assert found[0].score == pytest.approx(1.0, abs=1e-5)


def test_identical_structure_is_accepted_without_decoding_the_screenshot() -> None:
    index = StateIndex(TEXT_DIM, 0.5)
    index.add(7, dialog("notes"))
    text_only = StateDescriptor("dialog", dialog("notes").text_vector, None, "notes", from_ui=True)
    candidate = index.search(text_only)[0]
    verifier = DualThresholdVerifier(MatchSettings())
    assert verifier.accepts(None, text_only, candidate)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="visual vector"):
        _ = candidate.visual_similarity  # it was never needed


def test_descriptions_need_the_visual_check_too() -> None:
    index = StateIndex(TEXT_DIM, 0.5)
    index.add(1, dialog("notes", visual_seed=1, from_ui=False))
    other_look = dialog("notes", visual_seed=2, from_ui=False)
    candidate = index.search(other_look)[0]
    assert candidate.text_similarity == pytest.approx(1.0, abs=1e-5)
    assert candidate.visual_similarity < 0.5
    assert not DualThresholdVerifier(MatchSettings()).accepts(None, other_look, candidate)  # type: ignore[arg-type]


def test_text_weight_must_leave_room_for_both() -> None:
    with pytest.raises(ValueError, match="text_weight"):
        MatchSettings(text_weight=1.0)


def test_an_app_with_fewer_than_k_nodes_is_searched_once() -> None:
    """The widening fetch would end at the whole index anyway: same result, one search."""
    index = StateIndex(TEXT_DIM, 0.5)
    for node in range(1, 400):
        index.add(node, dialog(f"app{node % 7}", visual_seed=node))
    index.add(400, dialog("rare", visual_seed=400))
    index.add(401, dialog("rare", visual_seed=401))
    calls: list[int] = []
    search = index.index.search
    index.index.search = lambda query, k: calls.append(k) or search(query, k)
    found = index.search(dialog("rare"), k=4)
    assert sorted(c.node_id for c in found) == [400, 401]
    assert calls == [len(index)]
    calls.clear()
    assert len(index.search(dialog("app3"), k=4)) == 4 and calls[0] == 32  # the usual start


def test_a_list_row_named_by_its_own_text_is_one_structure_whatever_it_lists() -> None:
    """A share sheet listing other contacts is the same screen: ``share_Alice`` showing
    "Alice" is a row of kind ``share_``, as ``note_3`` is a row of kind ``note_#``."""
    from guigraph.geometry import BBox, ScreenSize
    from guigraph.graph.screen import ScreenView
    from guigraph.types import Observation, UIElement

    def sheet(*names: str) -> ScreenView:
        rows = tuple(
            UIElement(BBox(0, 100 * i, 1000, 100 * i + 90), text=name,
                      class_name="android.widget.LinearLayout",
                      resource_id=f"gallery:id/share_{name}", clickable=True)
            for i, name in enumerate(names, start=1)
        )  # fmt: skip
        title = UIElement(BBox(0, 0, 1000, 90), text="Share to",
                          class_name="android.widget.TextView",
                          resource_id="gallery:id/dialog_title")  # fmt: skip
        return ScreenView(Observation(ScreenSize(360, 780), elements=(title, *rows)))

    assert sheet("Alice", "Chen").structure_tokens() == sheet("Bruno", "Dana").structure_tokens()
    # An id that does not spell the element's text keeps its name; a button's label is what
    # the button is, so "OK" and "Cancel" of a pop-up stay apart.
    buttons = tuple(
        UIElement(BBox(0, 60 * i, 100, 60 * i + 50), text=text,
                  class_name="android.widget.Button", resource_id=rid, clickable=True)
        for i, (text, rid) in enumerate(
            [("Save", "notes:id/save_note"), ("OK", "popup:id/popup_ok"),
             ("Cancel", "popup:id/popup_cancel")]
        )
    )  # fmt: skip
    view = ScreenView(Observation(ScreenSize(360, 780), elements=buttons))
    assert view.structure_tokens() == {
        "button:notes:save_note", "button:popup:popup_ok", "button:popup:popup_cancel"
    }  # fmt: skip


def test_looks_alone_scores_are_cosines_so_revisits_add_no_exemplar() -> None:
    """A screen with no text ranks by its looks alone: an identical revisit scores 1.0 (not
    1 - text_weight, which is under ``exemplar_below`` and made every visit an exemplar)."""
    index = StateIndex(TEXT_DIM, 0.5)
    looks = StateDescriptor("", np.zeros(TEXT_DIM, np.float32), unit(3, VISUAL_DIM), None)
    index.add(1, looks)
    index.add(2, StateDescriptor("", np.zeros(TEXT_DIM, np.float32), unit(4, VISUAL_DIM), None))
    best = index.search(looks)[0]
    assert best.node_id == 1
    assert best.score == pytest.approx(1.0, abs=1e-5)
    assert best.score >= MatchSettings().exemplar_below
    assert best.score == pytest.approx(best.visual_similarity, abs=1e-5)


def test_structure_vectors_are_scikit_learns_hashing_bit_for_bit() -> None:
    """Worked out without scikit-learn's checks, the vectors stay those of its
    ``FeatureHasher`` and l2 ``normalize``: a KB built before finds the same screens. A small
    dimension makes tokens share buckets (two and three to one), zero weights are skipped."""
    import random

    from sklearn.preprocessing import normalize

    rng = random.Random(0)
    vocab = [f"{r}:{n}" for r in ("button", "textview", "switch") for n in range(12)] + ["ü:é"]
    for dim in (4, 16, 64):
        for _ in range(300):
            tokens = [
                (rng.choice(vocab), rng.choice([1.0, 0.3, 0.1, 0.0]))
                for _ in range(rng.randint(1, 30))
            ]
            expected = normalize(
                matcher._structure_hasher(dim).transform([tokens]), norm="l2"
            ).toarray()
            got = structure_vectors([tokens], dim)
            assert got.dtype == np.float32
            assert np.array_equal(got[0], np.asarray(expected[0], dtype=np.float32))
    plain = structure_vectors([["button:ok", "textview:title"], []], 64)
    assert np.array_equal(
        plain[0], structure_vectors([[("button:ok", 1.0), ("textview:title", 1.0)]], 64)[0]
    )
    assert not plain[1].any()
