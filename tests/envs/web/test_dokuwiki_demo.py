"""`guigraph demo --world dokuwiki`: a private wiki, a person's demonstration, the graph, new
values and wordings, end to end and resumable; bad options are one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app

pytestmark = pytest.mark.slow
runner = CliRunner()


def _demo(out: Path, *extra: str) -> tuple[int, str]:
    args = ["demo", "--world", "dokuwiki", "--out", str(out), "--json", "--demos", "1"]
    result = runner.invoke(app, [*args, "--eval-seeds", "1", "--memory", "graph", *extra])
    return result.exit_code, result.output


def test_the_dokuwiki_demo_runs_end_to_end_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    code, output = _demo(out, "--tasks", "search_open")
    assert code == 0, output
    report = json.loads(output[output.index("{") :])
    splits = report["tasks"]["search_open"]
    assert set(splits) == {"new_values", "new_wordings", "frozen_wordings"}
    assert all(splits[s]["graph"]["episodes"] == 1 for s in splits)
    assert 0.0 <= report["mean_sr"]["graph"] <= 1.0 and set(report["by_split"]) == set(splits)
    rows = (out / "results.jsonl").read_text().splitlines()
    assert len(rows) == 3 and list((out / "logs").rglob("*.json"))
    # Run again: every case is kept, none is run twice, the report is the same.
    code, again = _demo(out, "--tasks", "search_open")
    assert code == 0 and len((out / "results.jsonl").read_text().splitlines()) == 3
    assert json.loads(again[again.index("{") :])["mean_sr"] == report["mean_sr"]


def test_an_unknown_workflow_is_one_clear_line(tmp_path: Path) -> None:
    code, output = _demo(tmp_path / "demo", "--tasks", "rename_page")
    assert code == 2 and "unknown workflow 'rename_page'" in output and "Traceback" not in output
    assert not (tmp_path / "demo").exists()
