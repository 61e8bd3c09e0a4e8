"""The model-free build against SimPhone's ground truth: the tuned defaults keep their quality.

The run's shared recording (40 episodes, noise 0.1; tests/conftest.py) keeps the suite fast;
BENCHMARKS.md has the 300-episode figures on two device profiles.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from guigraph.data.odyssey import OdysseyDataset
from guigraph.graph.build import GraphBuilder
from guigraph.graph.kb import KnowledgeBase
from guigraph.graph.settings import KBSettings
from guigraph.graph.truth import check

pytestmark = pytest.mark.slow


def build(logs: Path, kb_dir: Path, use_ui: bool) -> KnowledgeBase:
    dataset = OdysseyDataset(logs)
    kb = KnowledgeBase.create(kb_dir, KBSettings(use_ui=use_ui))
    ids = dataset.episode_ids(split="random", part="train")
    summary = GraphBuilder(kb).build([(i, lambda i=i: dataset.load(i)) for i in ids])
    assert summary.added == len(ids) and not summary.skipped
    return kb


def test_with_ui_tree(simphone_logs: Path, tmp_path: Path) -> None:
    report = check(build(simphone_logs, tmp_path / "kb", use_ui=True), simphone_logs)
    assert report.jump_accuracy >= 0.95
    assert report.purity >= 0.95
    assert report.ari >= 0.85


def test_screenshots_and_descriptions_only(simphone_logs: Path, tmp_path: Path) -> None:
    report = check(build(simphone_logs, tmp_path / "kb", use_ui=False), simphone_logs)
    assert report.jump_accuracy >= 0.9
    assert report.purity >= 0.9
    assert report.ari >= 0.75


def test_screenshots_alone(simphone_logs: Path, tmp_path: Path) -> None:
    """Neither UI tree nor description: the looks decide (issue 13's screenshot-only target).
    A chat with another contact or an alarm list in dark mode must stay one node."""
    from dataclasses import replace

    dataset = OdysseyDataset(simphone_logs)
    kb = KnowledgeBase.create(tmp_path / "kb", KBSettings(use_ui=False))
    ids = dataset.episode_ids(split="random", part="train")

    def load(episode_id: str) -> object:
        episode = dataset.load(episode_id, elements=False)
        return replace(episode, steps=tuple(replace(s, description="") for s in episode.steps))

    GraphBuilder(kb).build([(i, lambda i=i: load(i)) for i in ids])  # type: ignore[misc]
    report = check(kb, simphone_logs)
    assert report.jump_accuracy >= 0.9
    assert report.purity >= 0.95
    assert report.ari >= 0.85
    assert report.nodes <= 1.5 * report.true_screens
