"""``guigraph eval web``: the named sets, the headline over every task, the run folder in
Chromium (killed with -9 and resumed), and the per-task report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.envs.web import tasksets
from guigraph.envs.web.env import WebEnv
from guigraph.envs.web.experts import demonstrate
from guigraph.envs.wrappers import RecordEpisodes
from guigraph.errors import ConfigError
from guigraph.eval import web
from guigraph.eval.runfolder import read_jsonl
from guigraph.graph.from_logs import build_from_logs

from .conftest import pids_of_process

runner = CliRunner()
SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "miniwob"


def test_the_named_sets_are_the_published_ones() -> None:
    browsergym, synapse = tasksets.named("browsergym"), tasksets.named("synapse")
    assert len(browsergym) == len(set(browsergym)) == 125
    assert len(synapse) == len(set(synapse)) == 63
    assert set(synapse) <= set(browsergym)
    assert "login-user" in tasksets.named("suite")
    assert tasksets.resolve("synapse") == tasksets.TaskSet("synapse", synapse)
    chosen = tasksets.resolve("miniwob/click-test, enter-text,click-test")
    assert chosen == tasksets.TaskSet("list", ("click-test", "enter-text"))


def test_the_shipped_sets_match_the_shared_benchmarks_file() -> None:
    source = SHARED / "benchmarks.json"
    if not source.is_file():
        pytest.skip(f"{source} is absent (a user's clone): nothing to compare with")
    shared = json.loads(source.read_text())
    assert list(tasksets.named("browsergym")) == shared["browsergym_125"]
    assert list(tasksets.named("synapse")) == shared["synapse_63"]


def test_an_unknown_task_is_named_with_the_closest_one() -> None:
    with pytest.raises(ConfigError, match=r"unknown MiniWoB task 'click-tst'.*click-test"):
        tasksets.resolve("enter-text,click-tst")
    with pytest.raises(ConfigError, match="empty"):
        tasksets.resolve(" , ")


def test_the_headline_counts_every_task_of_the_set() -> None:
    episodes = [
        {"task": "enter-text", "success": True, "reward": 0.9},
        {"task": "enter-text", "success": False, "reward": -1.0},
        {"task": "click-test", "success": True, "reward": 1.0},
    ]
    config = {"task_set": "list", "tasks": ["enter-text", "click-test", "click-link"]}
    summary = web.summary(episodes, config)
    assert summary["per_task"]["enter-text"]["sr"] == 0.5
    assert summary["per_task"]["click-link"] == {
        "sr": 0.0, "episodes": 0, "successes": 0, "mean_reward": None,
    }  # fmt: skip
    assert summary["mean_sr"] == pytest.approx(1.5 / 3, abs=1e-4)  # not run: counted 0
    assert summary["means"]["browsergym"]["mean_sr"] == pytest.approx(1.5 / 125, abs=1e-4)
    assert summary["means"]["browsergym"]["evaluated"] == 2
    assert summary["means"]["synapse"]["tasks"] == 63


def test_jobs_are_seed_major_on_new_seeds() -> None:
    jobs = web.plan_jobs(["a", "b"], 2)
    pairs = [(j.task, j.seed - jobs[0].seed) for j in jobs]
    assert pairs == [("a", 0), ("b", 0), ("a", 1), ("b", 1)]
    assert jobs[0].seed >= 1_000_000  # far from the demonstrations' seeds (0 up)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A KB from two demonstrations of enter-text, recorded in the real browser."""
    root = tmp_path_factory.mktemp("web-kb")
    with RecordEpisodes(WebEnv(timeout=5.0), root / "logs") as recorder:
        for seed in (0, 1):
            _, verdict = demonstrate(recorder, "enter-text", seed)
            assert verdict is not None and verdict.success
    build_from_logs(root / "logs", root / "kb")
    yield root / "kb"


def _eval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guigraph", "eval", "web", *args],
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found += [int(p) for p in task.read_text().split()]
    return found


@pytest.mark.slow  # Chromium in two worker processes, killed with -9, resumed
def test_eval_web_is_killed_resumed_and_counts_every_episode_once(kb: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["--kb", str(kb), "--out", str(out), "--tasks", "enter-text,click-test",
            "--seeds", "3", "--concurrency", "2"]  # fmt: skip
    child = subprocess.Popen(
        [sys.executable, "-m", "guigraph", "eval", "web", *args], stderr=subprocess.PIPE
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(read_jsonl(out / "episodes.jsonl")) < 2:
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the run never got going"
            workers = _children(child.pid) or workers
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert workers, "web episodes run in worker processes"
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(pids_of_process(p) for p in workers):
        time.sleep(0.1)
    assert not any(pids_of_process(p) for p in workers), "a Chromium outlived the killed run"
    done = len(read_jsonl(out / "episodes.jsonl"))
    assert 2 <= done < 6

    resumed = _eval(*args)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{done} already done" in resumed.stdout
    episodes = read_jsonl(out / "episodes.jsonl")
    ids = [e["episode_id"] for e in episodes]
    assert len(ids) == len(set(ids)) == 6
    assert {(e["task"], e["seed"] - 1_000_000) for e in episodes} == {
        (t, s) for t in ("enter-text", "click-test") for s in range(3)
    }
    summary = json.loads((out / "summary.json").read_text())
    # Two demonstrations of enter-text; none of click-test, which counts 0 all the same.
    assert summary["per_task"]["enter-text"]["sr"] > 0
    assert summary["per_task"]["click-test"]["sr"] == 0.0
    assert summary["mean_sr"] == pytest.approx(summary["per_task"]["enter-text"]["sr"] / 2)
    assert summary["means"]["synapse"]["evaluated"] == 2
    for row in episodes:
        assert set(row) >= {"task", "seed", "success", "reward", "steps", "seconds"}

    report = runner.invoke(app, ["report", str(out), "--markdown"])
    assert report.exit_code == 0, report.output
    assert "| `click-test` | 0.00 |" in report.output
    assert "**mean: browsergym (125 tasks)**" in report.output
    assert "**mean: synapse (63 tasks)**" in report.output


def test_the_no_graph_baseline_needs_no_kb_and_a_graph_run_needs_one(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["eval", "web", "--out", str(tmp_path / "a")])
    assert missing.exit_code == 2
    assert "--kb is needed" in missing.output and "Traceback" not in missing.output
    unknown = runner.invoke(
        app, ["eval", "web", "--out", str(tmp_path / "b"), "--memory", "none", "--tasks", "nope"]
    )
    assert unknown.exit_code == 2 and "unknown MiniWoB task 'nope'" in unknown.output
    none = _eval("--out", str(tmp_path / "c"), "--memory", "none", "--tasks", "click-test",
                 "--seeds", "2")  # fmt: skip
    assert none.returncode == 0, none.stderr
    summary = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert summary["per_task"]["click-test"] == {
        "sr": 0.0, "episodes": 2, "successes": 0, "mean_reward": 0.0,  # the episode never ended
    }  # fmt: skip
    assert pids_of_process(os.getpid()) == []
