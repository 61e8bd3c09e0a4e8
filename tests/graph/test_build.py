"""Building a knowledge base from rendered episodes: states, condensed edges, traces, resume."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from guigraph.errors import ConfigError, DatasetError
from guigraph.graph.build import GraphBuilder, sample_ids
from guigraph.graph.kb import STATES_INDEX_FILE, KnowledgeBase
from guigraph.graph.matcher import DualThresholdVerifier, MatchSettings
from guigraph.graph.records import SlotKey, TextSource
from guigraph.graph.settings import KBSettings
from guigraph.graph.truth import check
from guigraph.types import Action, ActionType
from tests.graph.conftest import make_recorders, sources, write_logs
from tests.graph.world import Recorder, search_episode


def build_kb(path: Path, recorders: list[Recorder], use_ui: bool = True) -> KnowledgeBase:
    kb = KnowledgeBase.create(path, KBSettings(use_ui=use_ui))
    GraphBuilder(kb).build(sources(recorders))
    return kb


def snapshot(kb: KnowledgeBase) -> tuple[object, ...]:
    edges = sorted((e.source, e.target, e.signature, e.count) for e in kb.edges())
    traces = sorted((t.episode_id, t.node_path, t.edge_path) for t in kb.traces())
    return kb.step_assignments(), edges, traces, len(kb.nodes())


def test_with_ui_recovers_every_true_screen(tmp_path: Path, recorders: list[Recorder]) -> None:
    kb = build_kb(tmp_path / "kb", recorders)
    report = check(kb, write_logs(tmp_path / "logs", recorders))
    assert (report.jump_accuracy, report.purity, report.ari) == (1.0, 1.0, 1.0)
    assert report.nodes == report.true_screens == 6  # launcher, 3 maps, 2 shop screens


def test_screenshots_and_descriptions_only(tmp_path: Path) -> None:
    recorders = make_recorders(with_ui=False)
    kb = build_kb(tmp_path / "kb", recorders, use_ui=False)
    report = check(kb, write_logs(tmp_path / "logs", recorders))
    assert report.jump_accuracy >= 0.9
    assert report.purity == 1.0  # may split a screen, never merges two
    assert report.ari >= 0.8
    assert all(node.app is None and node.example_elements == () for node in kb.nodes())


def test_in_page_run_is_one_edge_with_whole_sequence_and_slot(
    tmp_path: Path, recorders: list[Recorder]
) -> None:
    kb = build_kb(tmp_path / "kb", recorders)
    searches = [r for r in recorders if r.episode_id.startswith("s")]
    # main --(tap field, type city, tap search)--> results: one edge for all cities.
    condensed = [e for e in kb.edges() if [a.type for a in e.actions] == ["click", "type", "click"]]
    assert len(condensed) == 1
    edge = condensed[0]
    assert edge.count == len(searches)
    assert edge.actions[1].text == "{text1}"
    assert edge.slots[0].name == "text1" and edge.slots[0].example == "Paris"
    assert edge.actions[0].target_id == "maps:id/query"  # the field, named from the UI tree
    assert edge.target_label == edge.actions[-1].target_label != ""
    # the scroll on the results page is condensed into the edge that leaves it
    assert any([a.type for a in e.actions] == ["scroll", "click"] for e in kb.edges())


def test_traces_are_paths_over_nodes(tmp_path: Path, recorders: list[Recorder]) -> None:
    kb = build_kb(tmp_path / "kb", recorders)
    trace = kb.trace("s00")
    assert trace is not None and trace.instruction == "Find Paris on the map"
    assert len(trace.node_path) == 4 and len(trace.edge_path) == 3
    edges = {e.edge_id: e for e in kb.edges()}
    for k, edge_id in enumerate(trace.edge_path):
        assert (edges[edge_id].source, edges[edge_id].target) == trace.node_path[k : k + 2]
    shop = kb.trace("p00")
    assert shop is not None and shop.node_path[1] == shop.node_path[3]  # back to the same node


def test_incremental_build_equals_build_at_once(tmp_path: Path, recorders: list[Recorder]) -> None:
    at_once = build_kb(tmp_path / "once", recorders)
    first, second = recorders[:4], recorders[4:]
    build_kb(tmp_path / "grown", first).close()
    (tmp_path / "grown" / STATES_INDEX_FILE).unlink()  # also exercise the rebuild from SQLite
    grown = build_kb(tmp_path / "grown", second)
    assert snapshot(grown) == snapshot(at_once)


def test_rebuilding_same_logs_adds_nothing(tmp_path: Path, recorders: list[Recorder]) -> None:
    kb = build_kb(tmp_path / "kb", recorders)
    before = snapshot(kb)
    summary = GraphBuilder(kb).build(sources(recorders))
    assert summary.added == 0 and summary.already_built == len(recorders)
    assert snapshot(kb) == before


class CrashingVerifier(DualThresholdVerifier):
    """Dies inside an episode's transaction after some calls, like a build killed half-way."""

    def __init__(self, crash_at: int):
        super().__init__(MatchSettings())
        self.calls, self.crash_at = 0, crash_at

    def accepts(self, *args: Any) -> bool:
        self.calls += 1
        if self.calls == self.crash_at:
            raise KeyboardInterrupt
        return super().accepts(*args)


def test_killed_build_resumes_without_duplicates(tmp_path: Path, recorders: list[Recorder]) -> None:
    at_once = build_kb(tmp_path / "once", recorders)
    kb = KnowledgeBase.create(tmp_path / "killed")
    with pytest.raises(KeyboardInterrupt):
        GraphBuilder(kb, verifier=CrashingVerifier(crash_at=25)).build(sources(recorders))
    kb.close()
    resumed = KnowledgeBase.open(tmp_path / "killed")
    done = len(resumed.traces())
    assert 0 < done < len(recorders)  # the interrupted episode left nothing behind
    GraphBuilder(resumed).build(sources(recorders))
    assert snapshot(resumed) == snapshot(at_once)


def test_bad_episodes_are_skipped_and_named(tmp_path: Path, recorders: list[Recorder]) -> None:
    logs = write_logs(tmp_path / "logs", recorders[:4])
    (logs / "screenshots" / "s01_2.png").unlink()
    (logs / "screenshots" / "s03_0.png").write_bytes(b"not a png")
    from guigraph.data.odyssey import OdysseyDataset

    dataset = OdysseyDataset(logs)

    def malformed() -> object:
        raise DatasetError("annotations/bad.json", "steps[1].action", "a known action", "JUMP")

    items = [(i, lambda i=i: dataset.load(i)) for i in dataset.episode_ids()]
    items.append(("bad", malformed))  # type: ignore[arg-type]
    kb = KnowledgeBase.create(tmp_path / "kb")
    summary = GraphBuilder(kb).build(items)
    assert summary.added == 2
    skipped = dict(summary.skipped)
    assert set(skipped) == {"s01", "s03", "bad"}
    assert "s03_0.png" in skipped["s03"] and "readable PNG" in skipped["s03"]
    assert "s01_2.png" in skipped["s01"] and "missing" in skipped["s01"]
    assert "steps[1].action" in skipped["bad"]
    assert {t.episode_id for t in kb.traces()} == {"s00", "s02"}
    assert {s[0] for s in kb.step_assignments()} == {"s00", "s02"}


def test_sampling_is_seeded() -> None:
    ids = [f"e{i}" for i in range(100)]
    picked = sample_ids(ids, 0.1, seed=3)
    assert len(picked) == 10 and picked == sample_ids(ids, 0.1, seed=3)
    assert picked != sample_ids(ids, 0.1, seed=4)
    assert picked == sorted(picked, key=ids.index)  # keeps the logs' order
    assert sample_ids(ids, 0.001, seed=0) and sample_ids(ids, None, 0) == ids
    with pytest.raises(ValueError):
        sample_ids(ids, 0.0, seed=0)


def test_kb_keeps_its_settings(tmp_path: Path, recorders: list[Recorder]) -> None:
    build_kb(tmp_path / "kb", recorders[:1]).close()
    with pytest.raises(ConfigError, match="use_ui"):
        KnowledgeBase.create(tmp_path / "kb", KBSettings(use_ui=False))


def test_trace_keeps_tail_actions_slot_values_and_screen_sources(tmp_path: Path) -> None:
    """A value read on one screen and typed later is a screen slot; the last state's actions
    (no edge holds them) are kept as the trace's tail."""
    from tests.graph.world import Recorder, ScreenState, center

    rec = Recorder("n01", "Note the temperature of Paris", random.Random(0))
    home = ScreenState("home.launcher")
    rec.act(home, Action.click(*center(home, 1)), "jump")
    place = ScreenState("maps.place", items=("Paris", "21°C", "Share"))
    rec.act(place, Action(ActionType.PRESS_HOME), "jump")
    rec.act(home, Action.click(*center(home, 2)), "jump")
    note = ScreenState("shop.main", extra={"field": "1"})
    rec.act(note, Action.click(100, 183), "in_page")
    note.keyboard = True
    rec.act(note, Action.type_text("21°C"), "in_page")
    note.typed = "21°C"
    rec.act(note, Action.click(*center(note, 2)), "in_page")
    rec.act(note, Action(ActionType.COMPLETE), None)
    kb = KnowledgeBase.create(tmp_path / "kb")
    GraphBuilder(kb).add_episode(rec.episode())
    trace = kb.trace("n01")
    assert trace is not None
    assert [a.type for a in trace.tail] == ["click", "type", "click", "complete"]
    typed = trace.tail[1]
    assert typed.text == "{text1}"
    assert typed.source_of("text1") == TextSource.screen("maps:id/place_1")
    assert trace.values == {SlotKey(None, "text1"): "21°C"}


def test_trace_values_are_the_episodes_own(tmp_path: Path) -> None:
    """Two episodes share the search edge; each trace keeps the city it typed."""
    kb = KnowledgeBase.create(tmp_path / "kb")
    builder = GraphBuilder(kb)
    for rec in (search_episode("a", "Paris", seed=1), search_episode("b", "Lima", seed=2)):
        builder.add_episode(rec.episode())
    first, second = kb.trace("a"), kb.trace("b")
    assert first is not None and second is not None
    shared = set(first.edge_path) & set(second.edge_path)
    typed_edges = [e for e in shared if any(k.edge_id == e for k in first.values)]
    assert typed_edges, "the search edge should be shared and carry a slot"
    key = next(k for k in first.values if k.edge_id == typed_edges[0])
    assert (first.values[key], second.values[key]) == ("Paris", "Lima")


class ScreenTitleOcr:
    """Stands in for RapidOCR: 'reads' a screenshot by looking up what was rendered on it."""

    def __init__(self, recorders: list[Recorder]):
        from guigraph.geometry import BBox
        from guigraph.ocr import OcrLine

        self.calls = 0
        self.text: dict[bytes, list[OcrLine]] = {}
        for rec in recorders:
            for step, truth in zip(rec.steps, rec.truth, strict=True):
                title = str(truth["screen"]).split(".")[1].upper()
                line = OcrLine(title, BBox(50, 30, 300, 60), 0.9)
                self.text[step.observation.screenshot or b""] = [line]

    def read(self, png: bytes) -> list[Any]:
        self.calls += 1
        return self.text[png]


def test_ocr_describes_screens_that_have_no_tree_and_no_description(tmp_path: Path) -> None:
    recorders = make_recorders(with_ui=False)
    for rec in recorders:  # strip the descriptions: only pixels are left
        rec.steps = [replace(step, description="") for step in rec.steps]
    ocr = ScreenTitleOcr(recorders)
    kb = KnowledgeBase.create(tmp_path / "kb", KBSettings(use_ui=False))
    GraphBuilder(kb, ocr=ocr).build(sources(recorders))
    report = check(kb, write_logs(tmp_path / "logs", recorders))
    assert report.purity == 1.0 and report.ari >= 0.8
    assert 0 < ocr.calls <= sum(len(r.steps) for r in recorders)  # run starts only
    assert {node.state_text for node in kb.nodes()} >= {"MAIN", "RESULTS", "CART"}
