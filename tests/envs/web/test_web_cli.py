"""The web world end to end on the command line: a recorded run grows the KB the next run uses."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.envs.web.env import WebEnv
from guigraph.envs.web.experts import demonstrate
from guigraph.envs.wrappers import RecordEpisodes

from .conftest import pids_of_process

runner = CliRunner()


def test_a_recorded_web_run_grows_the_kb_and_the_next_run_retrieves_it(tmp_path: Path) -> None:
    # A knowledge base from one scripted demonstration...
    with RecordEpisodes(WebEnv(timeout=5.0), tmp_path / "demo") as recorder:
        _, verdict = demonstrate(recorder, "enter-text", 1)
    assert verdict is not None and verdict.success
    kb = tmp_path / "kb"
    built = runner.invoke(app, ["build", str(tmp_path / "demo"), "--kb", str(kb)])
    assert built.exit_code == 0 and "built 1 episodes" in built.output, built.output

    # ... lets the team solve a new seed, and that run is recorded...
    run_args = ["run", "--env", "web", "--task", "miniwob/enter-text", "--seed", "2"]
    result = runner.invoke(app, [*run_args, "--kb", str(kb), "--record", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    assert "success: yes" in result.output
    episodes = list((tmp_path / "runs" / "annotations").glob("*.json"))
    assert len(episodes) == 1
    recorded = json.loads(episodes[0].read_text())
    instruction = recorded["task_info"]["instruction"]
    assert instruction.startswith('Enter "') and instruction.endswith("press Submit.")

    # ... grows the knowledge base, and is what retrieval finds first for that task.
    grown = runner.invoke(app, ["build", str(tmp_path / "runs"), "--kb", str(kb)])
    assert grown.exit_code == 0 and "built 1 episodes" in grown.output, grown.output
    found = runner.invoke(app, ["retrieve", str(kb), instruction, "--json"])
    assert found.exit_code == 0, found.output
    top = json.loads(found.output)["traces"][0]
    assert top["episode_id"] == episodes[0].stem and top["instruction"] == instruction
    assert pids_of_process(os.getpid()) == [], "a Chromium outlived the runs"


def test_web_tasks_lists_the_suite_and_why_others_are_out() -> None:
    result = runner.invoke(app, ["web", "tasks", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["task"]: row for row in json.loads(result.output)}
    assert rows["miniwob/login-user"]["suite"] is True
    assert "one action" in rows["miniwob/click-button"]["left_out"]
    assert rows["miniwob/click-button"]["demonstrator"] and rows["miniwob/click-button"]["synapse"]
    assert rows["miniwob/drag-box"]["browsergym"] and not rows["miniwob/drag-box"]["demonstrator"]
    assert sum(row["suite"] for row in rows.values()) >= 12


def test_run_on_an_unknown_miniwob_task_is_one_clear_line() -> None:
    result = runner.invoke(app, ["run", "--env", "web", "--task", "miniwob/login-usr"])
    assert result.exit_code == 2
    assert "unknown MiniWoB task 'login-usr'; did you mean miniwob/login-user?" in result.output
    assert "Traceback" not in result.output
    assert pids_of_process(os.getpid()) == []


@pytest.mark.slow  # the whole web demo in Chromium, twice
def test_demo_world_web_records_builds_evaluates_and_resumes(tmp_path: Path) -> None:
    args = ["demo", "--world", "web", "--out", str(tmp_path / "d"), "--json"]
    small = ["--demos", "3", "--eval-seeds", "1", "--templates", "enter-password"]
    first = runner.invoke(app, [*args, *small])
    assert first.exit_code == 0, first.output
    report = json.loads(first.output[first.output.index("{") :])
    rates = report["tasks"]["enter-password"]
    assert set(rates) == {"graph", "trace", "none"}
    assert rates["graph"] == {"sr": 1.0, "episodes": 1} and rates["none"]["sr"] == 0.0
    assert set(report["mean_sr"]) == {"graph", "trace", "none"}
    rows = (tmp_path / "d" / "results.jsonl").read_text().splitlines()
    assert len(rows) == 3
    again = runner.invoke(app, [*args, *small])  # everything is reused
    assert (
        again.exit_code == 0
        and len((tmp_path / "d" / "results.jsonl").read_text().splitlines()) == 3
    )
    # Another version's folder (its KB may have another schema) is started over, not reused.
    marker = tmp_path / "d" / "world_demo.json"
    marker.write_text(json.dumps({"world": "web", "code": "another version"}))
    (tmp_path / "d" / "results.jsonl").write_text(rows[0] + "\n")
    redone = runner.invoke(app, [*args, *small])
    assert redone.exit_code == 0, redone.output
    assert "starting over" in redone.output
    assert len((tmp_path / "d" / "results.jsonl").read_text().splitlines()) == 3
    marker.write_text(json.dumps({"world": "android", "code": "x"}))
    other = runner.invoke(app, [*args, *small])
    assert other.exit_code != 0 and "holds the 'android' demo" in other.output
    assert pids_of_process(os.getpid()) == []


def test_demo_world_web_counts_every_task_of_the_set(tmp_path: Path) -> None:
    args = ["demo", "--world", "web", "--out", str(tmp_path / "d"), "--json", "--demos", "2"]
    chosen = ["--tasks", "click-test-2,click-pie", "--eval-seeds", "1", "--memory", "graph"]
    result = runner.invoke(app, [*args, *chosen])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{") :])
    assert report["task_set"] == "list" and list(report["tasks"]) == ["click-test-2", "click-pie"]
    assert report["tasks"]["click-pie"] == {"graph": {"sr": 0.0, "episodes": 0}}
    assert "drag" in report["without_demonstrator"]["click-pie"]
    assert report["tasks"]["click-test-2"]["graph"]["episodes"] == 1
    done = report["tasks"]["click-test-2"]["graph"]["sr"]
    assert report["mean_sr"] == {"graph": done / 2}  # the task without one counts 0
    assert report["setup"]["recorded"] == {"episodes": 2, "failed": 0}
    bad = runner.invoke(app, [*args, "--tasks", "browsergym", "--memory", "grahp"])
    assert bad.exit_code == 2 and "grahp" in bad.output
    assert pids_of_process(os.getpid()) == []
