"""``guigraph run`` and ``guigraph retrieve`` on the run's shared tiny KB (tests/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app

runner = CliRunner()
#: A template whose recorded episode lands in the train split of the logs below.
TEMPLATE = "info.weather"  # the 32 traces of the fixture cover it well


@pytest.fixture(scope="module")
def kb(simphone_kb: Path) -> Path:
    stats = json.loads(runner.invoke(app, ["kb", "stats", str(simphone_kb), "--json"]).output)
    assert stats["traces"] == 32
    return simphone_kb


def test_run_a_template_prints_steps_checks_success_and_saves_the_trajectory(
    kb: Path, tmp_path: Path
) -> None:
    out = tmp_path / "traj"
    args = ["run", "--env", "simphone", "--task", TEMPLATE, "--seed", "900000001"]
    result = runner.invoke(app, [*args, "--kb", str(kb), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "success: yes (the world's checker)" in result.output
    assert "Task " in result.output and "finished after" in result.output
    saved = json.loads((out / "result.json").read_text())
    assert saved["success"] is True and saved["task"]["template_id"] == TEMPLATE
    steps = (out / "steps.jsonl").read_text().splitlines()
    assert len(steps) == saved["steps"] > 1
    assert len(list((out / "screens").glob("*.png"))) == len(steps)
    last = json.loads(steps[-1])
    assert last["executed"]["action"]["type"] == "complete"


def test_the_trace_baseline_and_ablations_run_too(kb: Path) -> None:
    args = ["run", "--task", TEMPLATE, "--seed", "900000001", "--kb", str(kb)]
    ablation = ["--memory", "trace", "--history", "atomic", "--verify", "never"]
    result = runner.invoke(app, [*args, *ablation, "--max-steps", "12"])
    assert result.exit_code == 0, result.output
    assert "success: " in result.output


def test_without_a_kb_the_team_has_no_graph_and_says_so(kb: Path) -> None:
    result = runner.invoke(app, ["run", "--task", TEMPLATE, "--max-steps", "3"])
    assert result.exit_code == 0, result.output
    assert "without a knowledge base (no --kb given)" in result.output
    assert "success: no" in result.output
    no_graph = runner.invoke(app, ["run", "--task", TEMPLATE, "--kb", str(kb), "--no-graph"])
    assert "without a knowledge base (--no-graph)" in no_graph.output


def test_free_text_runs_but_success_is_unknown(kb: Path) -> None:
    args = ["run", "--task", "Check the weather in Oslo", "--kb", str(kb), "--max-steps", "5"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "no checker" in result.output and "success: unknown" in result.output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--env", "simphon"], "unknown world 'simphon'; did you mean 'simphone'?"),
        (["--task", "tool.wify"], "unknown SimPhone template 'tool.wify'"),
        (["--device", "Nokia 3310"], "unknown device 'Nokia 3310'"),
        (["--kb", "/nonexistent/kb"], "no such knowledge-base folder"),
        (["--memory", "tape"], "'tape' is not one of 'graph', 'trace'"),
        (["--verify", "adaptive"], "--verify must be one of always, never, got 'adaptive'"),
        (["--version", "3"], "app version must be 1 or 2"),
        (["--team", "mga"], "--team mga is a model team: use --policy model, not graph"),
        (["--team", "mgx"], "'mgx' is not one of 'guigraph', 'mga'"),
    ],
)
def test_bad_run_options_give_clear_errors(extra: list[str], message: str) -> None:
    result = runner.invoke(app, ["run", "--task", TEMPLATE, *extra])
    assert result.exit_code == 2
    # Click's own errors come in a box that may wrap the message.
    assert message in " ".join(result.output.replace("│", " ").split())


def test_a_folder_that_is_not_a_kb_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--task", TEMPLATE, "--kb", str(tmp_path)])
    assert result.exit_code == 2 and "not a knowledge base" in result.output


def test_retrieve_json_lists_ranked_traces_with_slots_and_the_context(kb: Path) -> None:
    task = "What is the weather in Lisbon"
    result = runner.invoke(app, ["retrieve", str(kb), task, "-k", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["task"] == task and len(data["traces"]) == 3
    scores = [trace["score"] for trace in data["traces"]]
    assert scores == sorted(scores, reverse=True)
    assert "weather" in data["traces"][0]["instruction"].lower()
    assert all(isinstance(trace["missing_slots"], list) for trace in data["traces"])
    assert data["context"].startswith("Trace 1 (similarity")
    assert 0 < data["tokens"] <= 1500 and data["truncated"] is False
    assert data["nodes"] > 0 and data["edges"] > 0


def test_retrieve_reads_a_lower_cased_task_as_the_team_does(kb: Path) -> None:
    # Speech to text: the capitals a task lost are given back before the search, as the
    # team's own retrieval does, so the values the table shows are the ones the team binds.
    said = "check the weather in lisbon and text it to bob"
    result = runner.invoke(app, ["retrieve", str(kb), said, "-k", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["task"] == "Check the weather in Lisbon and text it to Bob"
    both = next(t for t in data["traces"] if "text" in t["instruction"])
    assert set(both["slot_values"].values()) == {"Lisbon", "Bob"}
    assert both["missing_slots"] == []


def test_retrieve_respects_the_token_budget_and_prints_a_table(kb: Path) -> None:
    small = runner.invoke(
        app, ["retrieve", str(kb), "Turn Wi-Fi on", "--token-budget", "30", "--json"]
    )
    data = json.loads(small.stdout)
    assert data["truncated"] is True and data["tokens"] <= 30
    shown = runner.invoke(app, ["retrieve", str(kb), "Turn Wi-Fi on", "-k", "2"])
    assert shown.exit_code == 0
    assert "Traces most similar to: Turn Wi-Fi on" in shown.output
    assert "Context" in shown.output and "Trace 2 (similarity" in shown.output


def test_retrieve_from_a_missing_kb_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["retrieve", str(tmp_path / "nope"), "anything"])
    assert result.exit_code == 2 and "no such knowledge-base folder" in result.output


def test_run_with_the_model_team_against_a_loopback_server(tmp_path: Path) -> None:
    """`--policy model` drives the real client against a local OpenAI-compatible server; the
    run folder keeps the usage, never the key."""
    from guigraph.testing import FakeModelServer
    from tests.agents.oracle import Oracle

    template, seed = "tool.wifi", 5
    oracle = Oracle([(template, seed)])
    out = tmp_path / "model-run"
    with FakeModelServer(oracle, models=("oracle",)) as server:
        args = ["run", "--task", template, "--seed", str(seed), "--policy", "model"]
        args += ["--model", "oracle", "--base-url", server.base_url, "--out", str(out)]
        result = runner.invoke(app, args, env={"OPENAI_API_KEY": "sk-test-secret-123"})
        assert result.exit_code == 0, result.output
        assert server.request_count > 0
    assert "success: yes (the world's checker)" in result.output
    usage = json.loads((out / "usage.json").read_text())
    assert usage["run"]["calls"] == server.request_count
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl"):
            assert "sk-test-secret-123" not in path.read_text()


def test_run_with_mgas_team_counts_the_grounding_step(tmp_path: Path) -> None:
    """`--team mga`: the semantic planner, the grounding step and the memory on the loopback
    oracle; the run says what the grounding step placed and missed, and keeps it."""
    from guigraph.testing import FakeModelServer
    from tests.agents.oracle import Oracle

    template, seed = "tool.wifi", 5
    out = tmp_path / "mga-run"
    with FakeModelServer(Oracle([(template, seed)]), models=("oracle",)) as server:
        args = ["run", "--task", template, "--seed", str(seed), "--policy", "model"]
        args += ["--team", "mga", "--model", "oracle", "--base-url", server.base_url]
        result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "success: yes (the world's checker)" in result.output
    assert "grounding: " in result.output and ", 0 missed" in result.output
    saved = json.loads((out / "result.json").read_text())
    assert saved["grounding"]["missed"] == 0 and saved["grounding"]["tree"] >= 1
    roles = json.loads((out / "usage.json").read_text())["by_role"]
    assert set(roles) == {"planner", "memory"}


def test_run_refuses_a_model_the_server_does_not_serve(tmp_path: Path) -> None:
    from guigraph.testing import FakeModelServer

    with FakeModelServer(models=("served",)) as server:
        args = ["run", "--task", TEMPLATE, "--policy", "model", "--model", "typo"]
        result = runner.invoke(app, [*args, "--base-url", server.base_url])
    assert result.exit_code != 0 and "'typo' is not served" in result.output
