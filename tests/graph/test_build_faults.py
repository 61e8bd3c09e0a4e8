"""`guigraph build` on awkward input: ids that disagree with file names, two builds at once."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from guigraph.cli.main import app

runner = CliRunner()


def _rename_inside(logs: Path, episode_id: str, new_id: str) -> Path:
    path = logs / "annotations" / f"{episode_id}.json"
    data = json.loads(path.read_text())
    data["episode_id"] = new_id
    path.write_text(json.dumps(data))
    return path


def test_an_episode_id_unlike_its_file_name_is_skipped_by_name_and_the_kb_grows(
    logs_dir: Path, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    path = _rename_inside(logs_dir, "s01", "s00")  # the id of another episode
    first = runner.invoke(app, ["build", str(logs_dir), "--kb", str(kb), "--sample", "0.5"])
    assert first.exit_code == 0, first.output
    second = runner.invoke(app, ["build", str(logs_dir), "--kb", str(kb)])
    assert second.exit_code == 0, second.output
    assert str(path) in second.output and "episode_id" in second.output
    stats = json.loads(runner.invoke(app, ["kb", "stats", str(kb), "--json"]).output)
    assert stats["traces"] == 7  # every train episode but the misnamed one


def test_a_second_build_into_the_same_kb_is_refused(logs_dir: Path, tmp_path: Path) -> None:
    from guigraph.graph.from_logs import BUILD_LOCK
    from guigraph.locks import folder_lock

    kb = tmp_path / "kb"  # a fresh folder: the first build has not written its tables yet
    with folder_lock(kb, BUILD_LOCK, "held by this test"):
        second = runner.invoke(app, ["build", str(logs_dir), "--kb", str(kb)])
    assert second.exit_code == 2, second.output
    assert "another build is writing this knowledge base" in second.output
    assert "no such table" not in second.output
    after = runner.invoke(app, ["build", str(logs_dir), "--kb", str(kb)])
    assert after.exit_code == 0 and "built 8 episodes" in after.output


def test_out_of_range_coordinates_skip_the_episode_once_by_name(
    logs_dir: Path, tmp_path: Path
) -> None:
    path = logs_dir / "annotations" / "p01.json"
    data = json.loads(path.read_text())
    click = next(i for i, s in enumerate(data["steps"]) if s["action"] == "CLICK")
    data["steps"][click]["info"] = [[1200, 540], [1200, 540]]  # off the 0..1000 grid
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["build", str(logs_dir), "--kb", str(tmp_path / "kb")])
    assert result.exit_code == 0, result.output
    assert result.output.count("skipped episode p01") == 1
    assert f"step {click}" in result.output and "0..1000" in result.output
    assert "1 skipped" in result.output


def test_the_kb_keeps_screenshot_paths_that_work_from_anywhere(
    logs_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    from guigraph.graph.kb import KnowledgeBase

    monkeypatch.chdir(logs_dir.parent)
    result = runner.invoke(app, ["build", logs_dir.name, "--kb", "kb"])
    assert result.exit_code == 0, result.output
    with KnowledgeBase.open(logs_dir.parent / "kb") as kb:
        paths = [Path(n.screenshot_path) for n in kb.nodes() if n.screenshot_path]
    assert paths and all(p.is_absolute() and p.is_file() for p in paths)
