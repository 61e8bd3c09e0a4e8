"""`guigraph build` and `guigraph kb stats|export|check` on a logs folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app

runner = CliRunner()


def test_build_uses_train_part_then_stats_export_check(logs_dir: Path, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    result = runner.invoke(app, ["build", str(logs_dir), "--kb", str(kb)])
    assert result.exit_code == 0, result.output
    assert "built 8 episodes" in result.output and "0 skipped" in result.output

    stats = json.loads(runner.invoke(app, ["kb", "stats", str(kb), "--json"]).output)
    assert stats["traces"] == 8  # s05 is in the test part and never leaks into the graph
    assert {"nodes", "edges", "traces", "apps", "average_degree"} <= set(stats)

    check = runner.invoke(app, ["kb", "check", str(kb), "--truth", str(logs_dir), "--json"])
    report = json.loads(check.output)
    assert report["jump_accuracy"] == report["purity"] == report["ari"] == 1.0

    out = tmp_path / "graph.html"
    exported = runner.invoke(app, ["kb", "export", str(kb), "--format", "html", "--out", str(out)])
    assert exported.exit_code == 0 and out.read_text().startswith("<!DOCTYPE html>")

    again = runner.invoke(app, ["build", str(logs_dir), "--kb", str(kb)])
    assert "built 0 episodes" in again.output and "8 already in the KB" in again.output


def test_build_reports_skipped_episode_by_name(logs_dir: Path, tmp_path: Path) -> None:
    (logs_dir / "screenshots" / "p01_1.png").unlink()
    result = runner.invoke(app, ["build", str(logs_dir), "--kb", str(tmp_path / "kb")])
    assert result.exit_code == 0
    assert "skipped episode p01" in result.output and "1 skipped" in result.output


def test_build_sample_seed_and_ignore_ui(logs_dir: Path, tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    args = ["build", str(logs_dir), "--kb", str(kb), "--sample", "0.5", "--seed", "1"]
    result = runner.invoke(app, [*args, "--ignore-ui"])
    assert "built 4 episodes" in result.output
    stats = json.loads(runner.invoke(app, ["kb", "stats", str(kb), "--json"]).output)
    assert stats["settings"]["use_ui"] is False and stats["apps"] == []
    mixed = runner.invoke(app, ["build", str(logs_dir), "--kb", str(kb)])
    assert mixed.exit_code == 2 and "use_ui" in mixed.output


def test_bad_inputs_exit_2_with_a_message(
    tmp_path: Path, logs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GUIGRAPH_MODEL", raising=False)
    missing = runner.invoke(app, ["build", str(tmp_path / "none"), "--kb", str(tmp_path / "kb")])
    assert missing.exit_code == 2 and "annotations" in missing.output
    llm = runner.invoke(
        app, ["build", str(logs_dir), "--kb", str(tmp_path / "kb"), "--judge", "llm"]
    )
    assert llm.exit_code == 2 and "GUIGRAPH_MODEL" in llm.output
    try:
        import rapidocr_onnxruntime  # noqa: F401
    except ImportError:  # the usual case: the extra is not installed
        ocr = runner.invoke(app, ["build", str(logs_dir), "--kb", str(tmp_path / "kb"), "--ocr"])
        assert ocr.exit_code == 2 and "guigraph[ocr]" in ocr.output
    (logs_dir / "splits" / "random_split.json").unlink()
    nosplit = runner.invoke(app, ["build", str(logs_dir), "--kb", str(tmp_path / "kb")])
    assert nosplit.exit_code == 2 and "random_split.json" in nosplit.output
    notkb = runner.invoke(app, ["kb", "stats", str(tmp_path)])
    assert notkb.exit_code == 2 and "not a knowledge base" in notkb.output


def test_build_records_the_encoder_asked_for_and_refuses_an_unknown_or_missing_one(
    logs_dir: Path, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    built = runner.invoke(app, ["build", str(logs_dir), "--kb", str(kb), "--encoder", "hashing:64"])
    assert built.exit_code == 0, built.output
    stats = json.loads(runner.invoke(app, ["kb", "stats", str(kb), "--json"]).output)
    assert stats["settings"]["encoder"] == "hashing:64"
    other = runner.invoke(app, ["build", str(logs_dir), "--kb", str(kb)])
    assert other.exit_code == 2 and "encoder" in other.output  # the KB keeps its own

    fresh = tmp_path / "fresh"
    unknown = runner.invoke(app, ["build", str(logs_dir), "--kb", str(fresh), "--encoder", "bert"])
    assert unknown.exit_code == 2 and "unknown encoder spec 'bert'" in unknown.output
    assert not fresh.exists()  # refused before anything was written
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:  # the usual case: the extra is not installed
        minilm = runner.invoke(
            app, ["build", str(logs_dir), "--kb", str(fresh), "--encoder", "minilm"]
        )
        assert minilm.exit_code == 2 and "guigraph[embed]" in minilm.output
        assert not fresh.exists()
