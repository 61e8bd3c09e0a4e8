"""A recorded workflow that reads one field of a screen, asked for another field it passes.

The logs hold lyrics posts (open a song, its lyrics, post the first line on Chirp) and likes,
never a run that reads the artist. "Post on Chirp who sings X" must follow the lyrics post
and carry the artist the player showed on the way, and the player's "Lyrics" button, which
the lyrics tasks talk about, must not be taken for a value the new task has to name.
"""

from __future__ import annotations

import pytest

from guigraph.envs.simphone.generalize import Half, Kind, item_task, packaged
from tests.compiler.recorded import KBView, kb_of, run_task

RECORDED = ("multi.lyrics_post", "media.like", "social.post")
SEEDS = (3101, 3102, 3103, 3104)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kb_view(tmp_path_factory: pytest.TempPathFactory) -> KBView:
    return kb_of(tmp_path_factory.mktemp("reading"), RECORDED, 60, seed=4)


def test_who_sings_is_read_off_the_player_a_lyrics_post_passes(
    kb_view: KBView,
) -> None:
    benchmark = packaged()
    item = next(
        i for i in benchmark.half(Half.DEV) if i.kind is Kind.PAIRING and "who sings" in i.wording
    )
    solved = [run_task(kb_view, item_task(item, seed), seed)[0] for seed in SEEDS]
    assert sum(solved) >= 3, solved
