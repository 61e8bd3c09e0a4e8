"""``guigraph eval``: run folders end to end (model-free and against the loopback model
server), kill -9 and resume, a faulty server, and the run-folder format the report reads."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.data.odyssey import OdysseyDataset
from guigraph.eval.runfolder import RunFolder, read_jsonl, read_run
from guigraph.testing import FakeModelServer, Reply
from guigraph.testing.server import has_image
from tests.eval.replay_oracle import replay_oracle

runner = CliRunner()
SECRET = "sk-test-secret-0123456789"
STEP_FIELDS = {
    "episode_id", "step", "category", "step_length", "gt", "pred", "sam2_bbox", "correct",
    "action", "screenshot", "screen", "instruction", "subgoal", "proposals", "narrative",
    "outcome", "tokens", "calls", "seconds",
}  # fmt: skip
EPISODE_FIELDS = {
    "episode_id", "category", "instruction", "steps", "correct_steps", "success", "seconds",
    "tokens",
}  # fmt: skip


@pytest.fixture(scope="module")
def logs(simphone_logs: Path) -> Path:
    """The run's shared recording (tests/conftest.py): 40 episodes, 8 of them in the test part."""
    return simphone_logs


@pytest.fixture(scope="module")
def kb(simphone_kb: Path) -> Path:
    return simphone_kb  # built from the train part only


@pytest.fixture(scope="module")
def test_ids(logs: Path) -> list[str]:
    return OdysseyDataset(logs).episode_ids(split="random", part="test")


@pytest.fixture(scope="module")
def recorded_steps(logs: Path, test_ids: list[str]) -> int:
    dataset = OdysseyDataset(logs)
    return sum(len(dataset.load(i).steps) for i in test_ids)


def _eval(logs: Path, kb: Path, out: Path, *extra: str) -> Any:
    return runner.invoke(
        app, ["eval", "odyssey", str(logs), "--kb", str(kb), "--out", str(out), *extra]
    )


def _score(steps: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["score", str(steps), "--json"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.output))


def _numbers(summary: dict[str, Any]) -> dict[str, Any]:
    """What must not depend on how (or in how many sessions) the run was made."""
    keep = ("ams", "sr", "episodes", "steps", "successes", "category_mean", "per_category")
    return {k: summary[k] for k in keep}


def _check_matches_score(run: Path) -> dict[str, Any]:
    summary = json.loads((run / "summary.json").read_text())
    scores = _score(run / "steps.jsonl")
    assert (summary["ams"], summary["sr"]) == (scores["ams"], scores["sr"])
    assert (summary["episodes"], summary["steps"]) == (scores["episodes"], scores["steps"])
    for name, group in scores["per_category"].items():
        mine = summary["per_category"][name]
        assert (mine["ams"], mine["sr"], mine["episodes"]) == (
            group["ams"],
            group["sr"],
            group["episodes"],
        )
    mean = runner.invoke(
        app, ["score", str(run / "steps.jsonl"), "--json", "--aggregate", "category-mean"]
    )
    mean_scores = json.loads(mean.output)
    assert summary["category_mean"] == {"ams": mean_scores["ams"], "sr": mean_scores["sr"]}
    return dict(summary)


@pytest.fixture(scope="module")
def graph_run(logs: Path, kb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "run-graph"
    result = _eval(logs, kb, out, "--concurrency", "2")
    assert result.exit_code == 0, result.output
    return out


def test_model_free_eval_writes_the_run_folder_and_score_agrees(
    graph_run: Path, test_ids: list[str], recorded_steps: int
) -> None:
    summary = _check_matches_score(graph_run)
    assert summary["episodes"] == len(test_ids) and summary["steps"] == recorded_steps
    assert summary["ams"] > 15  # 30.28 measured; the best constant guess scores 7.34
    assert {"usage", "faults", "per_category", "sr", "ams"} <= set(summary)
    manifest = json.loads((graph_run / "manifest.json").read_text())
    assert manifest["schema_version"] == 1 and manifest["suite"] == "odyssey"
    assert manifest["config"]["policy"] == "graph" and manifest["config"]["split"] == "random"
    assert manifest["kb_id"] and manifest["started"] and manifest["ended"]
    assert manifest["guigraph_version"] and "git_commit" in manifest
    steps = read_jsonl(graph_run / "steps.jsonl")
    assert len(steps) == recorded_steps
    for row in steps:
        assert set(row) >= STEP_FIELDS, STEP_FIELDS - set(row)
        assert isinstance(row["correct"], bool)
        assert Path(row["screenshot"]).is_absolute() and Path(row["screenshot"]).is_file()
    first = next(r for r in steps if r["action"] is not None)
    assert first["proposals"] and {"action", "accepted", "feedback"} <= set(first["proposals"][0])
    episodes = read_jsonl(graph_run / "episodes.jsonl")
    assert sorted(e["episode_id"] for e in episodes) == sorted(test_ids)
    for row in episodes:
        assert set(row) >= EPISODE_FIELDS
        mine = [s for s in steps if s["episode_id"] == row["episode_id"]]
        assert row["steps"] == len(mine) and row["correct_steps"] == sum(s["correct"] for s in mine)
        assert row["success"] == all(s["correct"] for s in mine)


def test_a_finished_run_is_not_run_again(logs: Path, kb: Path, graph_run: Path) -> None:
    before = (graph_run / "steps.jsonl").read_text()
    again = _eval(logs, kb, graph_run)
    assert again.exit_code == 0, again.output
    assert "0 episodes run, 8 already done" in again.output
    assert (graph_run / "steps.jsonl").read_text() == before
    refused = _eval(logs, kb, graph_run, "--no-resume")
    assert refused.exit_code == 2 and "already holds a run" in refused.output
    other = _eval(logs, kb, graph_run, "--memory", "trace")
    assert other.exit_code == 2 and "config.memory" in other.output
    assert "Traceback" not in other.output


def test_a_kb_built_from_test_episodes_is_refused(
    logs: Path, tmp_path: Path, test_ids: list[str]
) -> None:
    leaky = tmp_path / "leaky"
    built = runner.invoke(app, ["build", str(logs), "--kb", str(leaky), "--split", "test"])
    assert built.exit_code == 0, built.output
    result = _eval(logs, leaky, tmp_path / "run", "--limit", "1")
    assert result.exit_code == 2 and "built from 8 of the episodes" in result.output
    assert all(i in result.output for i in test_ids)
    assert not (tmp_path / "run").exists()


@pytest.fixture(scope="module")
def oracle_run(
    logs: Path, kb: Path, test_ids: list[str], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, int, int]:
    """policy model against the loopback oracle, 4 episodes in flight."""
    out = tmp_path_factory.mktemp("eval") / "run-model"
    oracle = replay_oracle(OdysseyDataset(logs), test_ids)
    os.environ["OPENAI_API_KEY"] = SECRET
    try:
        with FakeModelServer(oracle, models=("oracle",), latency_s=0.01) as server:
            result = _eval(
                logs, kb, out, "--policy", "model", "--model", "oracle",
                "--base-url", server.base_url, "--concurrency", "4",
            )  # fmt: skip
            assert result.exit_code == 0, result.output
            requests, most = server.request_count, server.max_in_flight
            assert all(a == f"Bearer {SECRET}" for a in server.authorizations)
    finally:
        del os.environ["OPENAI_API_KEY"]
    return out, requests, most


def test_model_eval_against_the_loopback_server(
    oracle_run: tuple[Path, int, int], recorded_steps: int
) -> None:
    run, requests, most = oracle_run
    summary = _check_matches_score(run)
    assert summary["steps"] == recorded_steps and summary["ams"] >= 95  # a perfect model
    assert summary["usage"]["calls"] == requests
    assert summary["usage"]["by_role"]["decider"]["calls"] >= recorded_steps
    assert 1 < most <= 4  # concurrent, never above --concurrency
    steps = read_jsonl(run / "steps.jsonl")
    assert sum(s["calls"] for s in steps) == requests
    assert all(s["tokens"]["prompt"] > 0 for s in steps if s["action"] is not None)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["model"]["model"] == "oracle" and "api_key" not in manifest["model"]
    for path in run.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path


def test_text_only_eval_sends_no_image_to_a_server_that_cannot_take_one(
    logs: Path, kb: Path, tmp_path: Path, test_ids: list[str]
) -> None:
    oracle = replay_oracle(OdysseyDataset(logs), test_ids)
    with FakeModelServer(oracle, models=("oracle",), vision=False) as server:
        result = _eval(
            logs, kb, tmp_path / "run", "--policy", "model", "--model", "oracle",
            "--base-url", server.base_url, "--concurrency", "2", "--limit", "2", "--text-only",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert server.requests and not any(has_image(body) for body in server.requests)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["episodes"] == 2 and summary["ams"] > 0
    assert not any(role["given_up"] for role in summary["faults"].values())


def test_a_faulty_server_costs_retries_not_steps(
    logs: Path,
    kb: Path,
    tmp_path: Path,
    test_ids: list[str],
    oracle_run: tuple[Path, int, int],
    recorded_steps: int,
) -> None:
    oracle = replay_oracle(OdysseyDataset(logs), test_ids)
    rng, lock = random.Random(7), threading.Lock()
    faults = [
        Reply.error(429, retry_after=0.05),
        Reply.error(500),
        Reply.slow(1.5),  # longer than --timeout
        Reply.garbage(),
        Reply.drop(),
    ]
    injected = {"count": 0}

    def script(body: dict[str, Any]) -> Reply:
        with lock:
            faulty = rng.random() < 0.10
            fault = rng.choice(faults)
        if faulty:
            injected["count"] += 1
            return fault
        return oracle(body)

    out = tmp_path / "run"
    with FakeModelServer(script, models=("oracle",)) as server:
        result = _eval(
            logs, kb, out, "--policy", "model", "--model", "oracle", "--base-url",
            server.base_url, "--concurrency", "4", "--timeout", "0.5", "--backoff", "0.02",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    summary = _check_matches_score(out)
    assert summary["steps"] == recorded_steps and not summary["incomplete_episodes"]
    retried = sum(role["retried"] for role in summary["faults"].values())
    # Every fault injected is retried; on a loaded machine a sound reply may also outlast the
    # 0.5 s timeout and be retried (the metering's exact counts are tests/eval/test_metering's).
    assert injected["count"] > 10 and retried >= injected["count"]
    assert sum(role["given_up"] for role in summary["faults"].values()) == 0
    clean = json.loads((oracle_run[0] / "summary.json").read_text())
    assert _numbers(summary) == _numbers(clean)


def _partial(run: Path) -> bool:
    finished = {e["episode_id"] for e in read_jsonl(run / "episodes.jsonl")}
    started = {s["episode_id"] for s in read_jsonl(run / "steps.jsonl")}
    return len(finished) >= 2 and bool(started - finished)


@pytest.mark.slow  # a subprocess run killed and resumed
def test_kill_9_mid_run_then_resume_counts_every_episode_once(
    logs: Path,
    kb: Path,
    tmp_path: Path,
    test_ids: list[str],
    oracle_run: tuple[Path, int, int],
) -> None:
    oracle = replay_oracle(OdysseyDataset(logs), test_ids)
    out = tmp_path / "run"
    with FakeModelServer(oracle, models=("oracle",), latency_s=0.03) as server:
        args = [
            "eval", "odyssey", str(logs), "--kb", str(kb), "--out", str(out), "--policy",
            "model", "--model", "oracle", "--base-url", server.base_url, "--concurrency", "2",
        ]  # fmt: skip
        child = subprocess.Popen(
            [sys.executable, "-m", "guigraph", *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while not (out.exists() and _partial(out)):
                assert child.poll() is None, child.stderr.read() if child.stderr else ""
                assert time.monotonic() < deadline, "the run never got going"
                time.sleep(0.05)
            os.kill(child.pid, signal.SIGKILL)
        finally:
            child.wait(timeout=30)
        assert child.returncode == -signal.SIGKILL
        killed_with = {e["episode_id"] for e in read_jsonl(out / "episodes.jsonl")}
        assert 2 <= len(killed_with) < len(test_ids)
        resumed = _eval(
            logs, kb, out, "--policy", "model", "--model", "oracle", "--base-url",
            server.base_url, "--concurrency", "3",
        )  # fmt: skip
        assert resumed.exit_code == 0, resumed.output
    assert f"{len(killed_with)} already done" in resumed.output
    episodes = [e["episode_id"] for e in read_jsonl(out / "episodes.jsonl")]
    assert sorted(episodes) == sorted(test_ids)  # every episode exactly once
    steps = read_jsonl(out / "steps.jsonl")
    keys = [(s["episode_id"], s["step"]) for s in steps]
    assert len(keys) == len(set(keys))
    summary = _check_matches_score(out)
    clean = json.loads((oracle_run[0] / "summary.json").read_text())
    assert _numbers(summary) == _numbers(clean)
    assert summary["usage"]["calls"] == clean["usage"]["calls"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(manifest["sessions"]) == 2


def test_resuming_drops_the_lines_of_unfinished_episodes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    manifest = {"schema_version": 1, "suite": "odyssey", "config": {}, "started": "t0",
                "sessions": [{"started": "t0", "ended": None}]}  # fmt: skip
    folder = RunFolder.open(run, manifest)
    folder.append_steps([{"episode_id": "a", "step": 0}, {"episode_id": "b", "step": 0}])
    folder.append_episode({"episode_id": "a", "steps": 1})
    folder.append_steps([{"episode_id": "b", "step": 1}, {"episode_id": "a", "step": 0}])
    with (run / "steps.jsonl").open("a") as torn:
        torn.write('{"episode_id": "b", "st')
    with (run / "episodes.jsonl").open("a") as torn:
        torn.write('{"episode_id": "b", "st')
    running = read_run(run)
    assert [s["episode_id"] for s in running.steps] == ["a", "a"] and running.summary is None
    assert len(read_run(run, settled=False).steps) == 4
    again = RunFolder.open(run, {**manifest, "started": "t1"})
    assert set(again.finished) == {"a"}
    assert read_jsonl(run / "steps.jsonl") == [{"episode_id": "a", "step": 0}]
    assert read_jsonl(run / "episodes.jsonl") == [{"episode_id": "a", "steps": 1}]
    saved = json.loads((run / "manifest.json").read_text())
    assert saved["started"] == "t0" and len(saved["sessions"]) == 2


def test_live_simphone_eval_writes_the_same_format(kb: Path, tmp_path: Path) -> None:
    out = tmp_path / "sim"
    result = runner.invoke(
        app,
        ["eval", "sim", "--kb", str(kb), "--out", str(out), "--templates",
         "tool.wifi,tool.alarm,multi.price_note", "--seeds", "2", "--concurrency", "2"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["suite"] == "sim" and summary["episodes"] == 6 and summary["ams"] is None
    assert summary["sr"] > 0 and {"usage", "faults", "per_category"} <= set(summary)
    episodes = read_jsonl(out / "episodes.jsonl")
    steps = read_jsonl(out / "steps.jsonl")
    assert len(steps) == sum(e["steps"] for e in episodes)
    assert all(s["correct"] is None and Path(s["screenshot"]).is_file() for s in steps)
    assert summary["successes"] == sum(e["success"] for e in episodes)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["suite"] == "sim" and manifest["seeds"]["cases"]


def test_mgas_team_evaluates_on_simphone_with_its_grounding_counted(
    kb: Path, tmp_path: Path
) -> None:
    """`eval sim --policy model --team mga` against the loopback oracle: the oracle's SR, and
    what the grounding step placed and missed per episode and in the summary."""
    from guigraph.eval.suite import EVAL_SEED_BASE
    from tests.agents.oracle import Oracle

    templates = ["tool.wifi", "info.note"]
    oracle = Oracle([(t, EVAL_SEED_BASE) for t in templates])
    out = tmp_path / "mga"
    with FakeModelServer(oracle, models=("oracle",)) as server:
        result = runner.invoke(
            app,
            ["eval", "sim", "--kb", str(kb), "--out", str(out), "--templates", ",".join(templates),
             "--policy", "model", "--team", "mga", "--model", "oracle", "--base-url",
             server.base_url],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sr"] == 100.0 and summary["episodes"] == 2
    assert summary["grounding"]["missed"] == 0 and summary["grounding"]["tree"] > 0
    assert set(summary["usage"]["by_role"]) == {"planner", "memory"}
    assert "grounding: " in result.output and "0 missed" in result.output
    episodes = read_jsonl(out / "episodes.jsonl")
    assert sum(e["grounding"]["tree"] for e in episodes) == summary["grounding"]["tree"]
    assert json.loads((out / "manifest.json").read_text())["config"]["team"] == "mga"


def test_ctrl_c_says_how_to_go_on(capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from guigraph.cli.eval import _guarded

    def interrupted(progress: Any) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(typer.Exit) as stopped:
        _guarded(interrupted)
    assert stopped.value.exit_code == 130
    assert "interrupted; run again to resume" in capsys.readouterr().err


@pytest.mark.slow
def test_ray_executor_gives_the_local_numbers(
    logs: Path,
    kb: Path,
    tmp_path: Path,
    test_ids: list[str],
    graph_run: Path,
    oracle_run: tuple[Path, int, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    oracle = replay_oracle(OdysseyDataset(logs), test_ids)
    graph_out, model_out = tmp_path / "graph", tmp_path / "model"
    graph = _eval(logs, kb, graph_out, "--executor", "ray", "--concurrency", "2")
    assert graph.exit_code == 0, graph.output
    with FakeModelServer(oracle, models=("oracle",)) as server:
        model = _eval(
            logs, kb, model_out, "--executor", "ray", "--policy", "model", "--model", "oracle",
            "--base-url", server.base_url, "--concurrency", "4",
        )  # fmt: skip
        assert model.exit_code == 0, model.output
        assert server.max_in_flight <= 4
    assert not ray.is_initialized()  # shut down by the run that started it
    for out, local in ((graph_out, graph_run), (model_out, oracle_run[0])):
        summary = _check_matches_score(out)
        expected = json.loads((local / "summary.json").read_text())
        assert _numbers(summary) == _numbers(expected)
        assert summary["usage"]["calls"] == expected["usage"]["calls"]
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["config"]["executor"] == "ray"


def _replicated(logs: Path, test_ids: list[str], out: Path, copies: int) -> list[str]:
    """The test episodes ``copies`` times under new ids (screenshots shared), all in test."""
    (out / "annotations").mkdir(parents=True)
    (out / "splits").mkdir()
    (out / "screenshots").symlink_to(logs / "screenshots")
    ids = []
    for n in range(copies):
        for source in test_ids:
            document = json.loads((logs / "annotations" / f"{source}.json").read_text())
            document["episode_id"] = new_id = f"8{n:03d}{source[4:]}"
            (out / "annotations" / f"{new_id}.json").write_text(json.dumps(document))
            ids.append(new_id)
    (out / "splits" / "random_split.json").write_text(json.dumps({"train": [], "test": ids}))
    return ids


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found += [int(p) for p in task.read_text().split()]
    return found


@pytest.mark.slow  # worker processes started, killed and resumed
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
def test_kill_9_of_a_multiprocess_run_leaves_no_worker_and_resumes(
    logs: Path, kb: Path, tmp_path: Path, test_ids: list[str]
) -> None:
    data = tmp_path / "data"
    ids = _replicated(logs, test_ids, data, copies=5)
    whole = tmp_path / "whole"
    assert _eval(data, kb, whole, "--concurrency", "2").exit_code == 0
    out = tmp_path / "run"
    args = ["eval", "odyssey", str(data), "--kb", str(kb), "--out", str(out), "--concurrency", "2"]
    child = subprocess.Popen([sys.executable, "-m", "guigraph", *args], stderr=subprocess.PIPE)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(read_jsonl(out / "episodes.jsonl")) < 2:
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the run never got going"
            workers = _children(child.pid) or workers
            time.sleep(0.02)
        workers = _children(child.pid) or workers
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert workers, "the graph policy runs in worker processes"
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [p for p in workers if Path(f"/proc/{p}").exists()]
    assert not alive, f"worker processes outlived the killed run: {alive}"
    done = len(read_jsonl(out / "episodes.jsonl"))
    assert 2 <= done < len(ids)
    resumed = _eval(data, kb, out, "--concurrency", "2")
    assert resumed.exit_code == 0, resumed.output
    assert f"{done} already done" in resumed.output
    assert sorted(e["episode_id"] for e in read_jsonl(out / "episodes.jsonl")) == sorted(ids)
    summary = _check_matches_score(out)
    expected = json.loads((whole / "summary.json").read_text())
    assert _numbers(summary) == _numbers(expected)


def test_unusable_replies_are_counted_and_no_step_is_lost(
    logs: Path, kb: Path, tmp_path: Path, test_ids: list[str]
) -> None:
    oracle = replay_oracle(OdysseyDataset(logs), test_ids)
    count = {"n": 0}
    lock = threading.Lock()

    def script(body: dict[str, Any]) -> Reply:
        with lock:
            count["n"] += 1
            spoil = count["n"] % 4 == 0
        return Reply.of("Sorry, I am not sure what to do here.") if spoil else oracle(body)

    out = tmp_path / "run"
    with FakeModelServer(script, models=("oracle",)) as server:
        result = _eval(
            logs, kb, out, "--policy", "model", "--model", "oracle", "--base-url",
            server.base_url, "--limit", "2", "--concurrency", "2",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    summary = _check_matches_score(out)
    dataset = OdysseyDataset(logs)
    ran = [e["episode_id"] for e in read_jsonl(out / "episodes.jsonl")]
    assert summary["steps"] == sum(len(dataset.load(i).steps) for i in ran)
    unparseable = {role: c["unparseable"] for role, c in summary["faults"].items()}
    assert unparseable["decider"] > 0 and sum(unparseable.values()) > unparseable["decider"]
    steps = read_jsonl(out / "steps.jsonl")
    rejected = [p for s in steps for p in s["proposals"] if not p["accepted"]]
    assert any("unparseable reply" in p["feedback"] for p in rejected)


def test_live_simphone_eval_with_the_model_team(kb: Path, tmp_path: Path) -> None:
    from guigraph.eval.suite import EVAL_SEED_BASE
    from tests.agents.oracle import Oracle

    templates = ["tool.wifi", "tool.alarm"]
    oracle = Oracle([(t, EVAL_SEED_BASE) for t in templates])
    out = tmp_path / "sim-model"
    with FakeModelServer(oracle) as server:
        result = runner.invoke(
            app,
            ["eval", "sim", "--kb", str(kb), "--out", str(out), "--templates",
             ",".join(templates), "--policy", "model", "--model", "test-model",
             "--base-url", server.base_url, "--concurrency", "2"],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        requests = server.request_count
    summary = json.loads((out / "summary.json").read_text())
    assert summary["episodes"] == 2 and summary["sr"] == 100.0  # the oracle knows the way
    assert summary["usage"]["calls"] == requests > 0
    steps = read_jsonl(out / "steps.jsonl")
    assert sum(s["calls"] for s in steps) == requests
    assert all(s["screenshot"] and s["screen"][0] > 0 for s in steps)
