"""Fixtures: small rendered episodes, in memory and as a GUIOdyssey-layout logs folder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from guigraph.data.odyssey import write_episode, write_split
from guigraph.types import Episode
from tests.graph.world import CITIES, Recorder, search_episode, shop_episode


def make_recorders(with_ui: bool = True, n_search: int = 6, n_shop: int = 3) -> list[Recorder]:
    search = [
        search_episode(f"s{i:02d}", CITIES[i % len(CITIES)], seed=i, with_ui=with_ui)
        for i in range(n_search)
    ]
    shop = [
        shop_episode(f"p{i:02d}", ("milk", "tea", "soap", "rice")[i % 4], seed=i, with_ui=with_ui)
        for i in range(n_shop)
    ]
    return search + shop


def sources(recorders: list[Recorder]) -> list[tuple[str, Callable[[], Episode]]]:
    return [(r.episode_id, lambda r=r: r.episode()) for r in recorders]


def write_logs(root: Path, recorders: list[Recorder], test_ids: tuple[str, ...] = ()) -> Path:
    """A logs folder as SimPhone writes it: annotations, screenshots, split, truth."""
    (root / "truth").mkdir(parents=True, exist_ok=True)
    for rec in recorders:
        write_episode(root, rec.episode())
        (root / "truth" / f"{rec.episode_id}.json").write_text(json.dumps(rec.truth_document()))
    ids = [r.episode_id for r in recorders]
    write_split(root, "random", [i for i in ids if i not in test_ids], list(test_ids))
    return root


@pytest.fixture(scope="session")
def recorders() -> list[Recorder]:
    return make_recorders()


@pytest.fixture
def logs_dir(tmp_path: Path, recorders: list[Recorder]) -> Path:
    return write_logs(tmp_path / "logs", recorders, test_ids=("s05",))
