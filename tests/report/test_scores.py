"""Run folders read back, Table I recomputed with the official scorer, and the CLI's outputs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.errors import DatasetError
from guigraph.eval.metrics import summarize
from guigraph.eval.steps import read_steps, score_records
from guigraph.report.runs import Run, load_runs
from guigraph.report.scores import failures_by_position, failures_by_type, score_run
from guigraph.report.table import markdown
from tests.report.runs import make_run

runner = CliRunner()


def test_table_matches_guigraph_score_per_category(tmp_path: Path) -> None:
    run = make_run(tmp_path / "full", 12)
    scores = score_run(Run.load(run))
    # the same numbers `guigraph score --aggregate category-mean` gives on the step lines
    official = summarize(score_records(read_steps(run / "steps.jsonl")), "category-mean")
    assert (scores.overall.ams, scores.overall.sr) == (official.ams, official.sr)
    for category, group in official.per_category.items():
        assert (scores.cells[category].ams, scores.cells[category].sr) == (group.ams, group.sr)
    assert scores.aggregate == "category-mean" and scores.source == "steps.jsonl"
    # every other episode misses its second step (a click): failures sit there
    assert failures_by_type(scores)["click"] == (6, 24)
    assert failures_by_position(scores)["2"] == (6, 12)
    assert failures_by_position(scores)["1"] == (0, 12)


def test_pooled_for_other_splits_and_summary_disagreement_noted(tmp_path: Path) -> None:
    run = make_run(tmp_path / "task", 6, split="task")
    (run / "summary.json").write_text(json.dumps({"ams": 12.5, "sr": 3.0}))
    scores = score_run(Run.load(run))
    assert scores.aggregate == "pooled"
    assert scores.overall.ams == pytest.approx(100 * 33 / 36, abs=0.01)
    assert scores.notes == (
        f"summary.json says AMS 12.50 / SR 3.00 (pooled); recomputed from the steps: "
        f"{scores.overall.ams:.2f} / {scores.overall.sr:.2f}",
    )


def test_summary_json_of_guigraph_eval_agrees(tmp_path: Path) -> None:
    """eval writes pooled ams/sr plus category_mean; the random split's table shows the mean."""
    run = make_run(tmp_path / "random", 12)
    scored = score_records(read_steps(run / "steps.jsonl"))
    pooled, mean = summarize(scored, "pooled"), summarize(scored, "category-mean")
    (run / "summary.json").write_text(
        json.dumps(
            {"ams": pooled.ams, "sr": pooled.sr, "aggregate": "pooled",
             "category_mean": {"ams": mean.ams, "sr": mean.sr}}
        )
    )  # fmt: skip
    scores = score_run(Run.load(run))
    assert scores.aggregate == "category-mean" and scores.notes == ()
    assert (scores.overall.ams, scores.overall.sr) == (mean.ams, mean.sr)


def test_live_run_takes_sr_from_episodes(tmp_path: Path) -> None:
    scores = score_run(Run.load(make_run(tmp_path / "live", 6, live=True)))
    assert scores.source == "episodes.jsonl"
    assert scores.overall.ams is None and scores.overall.sr == 50.0
    assert (
        scores.cells["General_Tool"].sr == 0.0 and scores.cells["Information_Management"].sr == 100
    )


def test_side_by_side_markdown_uses_folder_names_and_short_category_names(tmp_path: Path) -> None:
    runs = load_runs(
        [make_run(tmp_path / "full", 6), make_run(tmp_path / "no|verifier", 6, wrong_every=3)]
    )
    text = markdown([score_run(r) for r in runs])
    head, _, first, second = text.splitlines()
    assert head.startswith("| Run | Tool AMS | Tool SR | Information AMS")
    assert "Multi-Apps SR | Overall AMS | Overall SR |" in head
    assert first.startswith("| full | ") and second.startswith("| no\\|verifier | ")
    assert len(first.split(" | ")) == 15


def test_torn_last_line_is_skipped_and_bad_lines_name_file_line_field(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", 2)
    steps = run / "steps.jsonl"
    lines = steps.read_text().splitlines()
    steps.write_text("\n".join(lines) + '\n{"episode_id": "ep0')  # killed mid-write
    assert len(Run.load(run).steps) == len(lines)
    bad = json.loads(lines[0]) | {"step": "one"}
    steps.write_text(json.dumps(bad) + "\n" + "\n".join(lines[1:]) + "\n")
    with pytest.raises(DatasetError, match=r"steps\.jsonl:1: field 'step'"):
        Run.load(run)
    with pytest.raises(DatasetError, match="run folder"):
        Run.load(tmp_path / "absent")


def test_cli_report_terminal_markdown_html_and_errors(tmp_path: Path) -> None:
    a, b = make_run(tmp_path / "graph", 6), make_run(tmp_path / "trace", 6, wrong_every=3)
    result = runner.invoke(app, ["report", str(a), str(b)])
    assert result.exit_code == 0, result.output
    assert "Multi-Apps" in result.output and "graph" in result.output and "Overall" in result.output
    result = runner.invoke(app, ["report", str(a), "--markdown"])
    assert result.exit_code == 0 and result.output.startswith("| Run | Tool AMS")
    out = tmp_path / "out" / "report.html"
    result = runner.invoke(app, ["report", str(a), str(b), "--html", str(out)])
    assert result.exit_code == 0 and out.read_text().count("data:image/png;base64,") == 3
    assert not re.search(r"""(src|href)=["']https?://""", out.read_text())  # offline
    (b / "steps.jsonl").write_text('{"episode_id": 3}\n{}\n')
    result = runner.invoke(app, ["report", str(a), str(b)])
    assert result.exit_code == 2
    assert "steps.jsonl:1: field 'episode_id'" in result.output
    assert "Traceback" not in result.output


def test_cli_view_writes_index_and_pages(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", 3)
    (run / "steps.jsonl").write_text(
        (run / "steps.jsonl")
        .read_text()
        .replace(str(run / "shots" / "ep001_2.png"), "/nowhere.png")
    )
    result = runner.invoke(app, ["view", str(run)])
    assert result.exit_code == 0, result.output
    assert "wrote 3 episode pages; 1 screenshots missing" in result.output
    pages = sorted(p.name for p in (run / "viewer" / "episodes").iterdir())
    assert pages == ["ep000.html", "ep001.html", "ep002.html"]
    page = (run / "viewer" / "episodes" / "ep001.html").read_text()
    assert "no screenshot" in page and page.count("data:image/jpeg;base64,") == 5
    assert not re.search(r"""(src|href)=["']https?://""", page)  # opens offline, from a file


def test_cli_view_can_link_screenshots_instead_of_embedding(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", 1)
    result = runner.invoke(
        app, ["view", str(run), "--out", str(tmp_path / "pages"), "--link-images"]
    )
    assert result.exit_code == 0, result.output
    page = tmp_path / "pages" / "episodes" / "ep000.html"
    sources = re.findall(r'<img [^>]*src="([^"]+)"', page.read_text())
    assert len(sources) == 6 and not any(s.startswith("data:") for s in sources)
    assert all((page.parent / s).resolve().is_file() for s in sources)


def test_a_run_whose_text_holds_line_separators_is_read_whole(tmp_path: Path) -> None:
    """JSONL lines end at "\\n" only: U+2028, U+0085 or U+001C inside a row's text is text."""
    run = make_run(tmp_path / "r", 2, hostile=True)
    lines = (run / "steps.jsonl").read_text(encoding="utf-8").split("\n")
    row = json.loads(lines[-2])
    row["narrative"] = "a\u2028b\x85c\x1cd\u2029e"
    lines[-2] = json.dumps(row, ensure_ascii=False)
    (run / "steps.jsonl").write_text("\n".join(lines), encoding="utf-8")
    assert "\u2028" in (run / "steps.jsonl").read_text(encoding="utf-8")
    loaded = Run.load(run)
    assert loaded.steps_of(row["episode_id"])[-1]["narrative"] == "a\u2028b\x85c\x1cd\u2029e"
    for args in (["view", str(run)], ["report", str(run)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "expected a JSON object" not in result.output, (
            result.output
        )


def test_the_world_demo_reads_its_rows_whole(tmp_path: Path) -> None:
    from guigraph.eval.world_demo import _read_rows

    path = tmp_path / "cases.jsonl"
    rows = [
        {"task": "t\u2028u", "memory": "graph", "success": True},
        {"task": "v", "success": False},
    ]
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    assert _read_rows(path) == rows
