"""Every run can be recorded (``run --record``) and grow a knowledge base (``build --kb``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import guigraph.graph.build as graph_build
from guigraph.cli.main import app
from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs.simphone.recorder import record
from guigraph.graph.from_logs import build_from_logs
from guigraph.graph.kb import KnowledgeBase

runner = CliRunner()


def test_a_recorded_run_grows_the_kb_and_the_next_run_retrieves_it(tmp_path: Path) -> None:
    # A KB that has never seen the weather workflow: the team cannot do it from the graph.
    record(tmp_path / "logs", 6, seed=3, noise=0.0, holdout=["info.weather"])
    build_from_logs(tmp_path / "logs", tmp_path / "kb")
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        before = kb.stats()["traces"]
    # A run of the task, recorded (the team follows the wrong workflow; the recording keeps
    # what it did, success or not, as GUIOdyssey-layout steps).
    recorded = tmp_path / "recorded"
    args = ["run", "--task", "info.weather", "--seed", "5", "--kb", str(tmp_path / "kb")]
    args += ["--max-steps", "6"]
    result = runner.invoke(app, [*args, "--record", str(recorded)])
    assert result.exit_code == 0, result.output
    assert f"recorded: {recorded}" in result.output
    data = OdysseyDataset(recorded)
    [episode_id] = data.episode_ids("random", "train")
    episode = data.load(episode_id)
    assert episode.steps and all(s.observation.elements for s in episode.steps)

    grown = runner.invoke(app, ["build", str(recorded), "--kb", str(tmp_path / "kb")])
    assert grown.exit_code == 0, grown.output
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert kb.stats()["traces"] == before + 1
    shown = runner.invoke(app, ["retrieve", str(tmp_path / "kb"), episode.instruction, "--json"])
    assert shown.exit_code == 0, shown.output
    top = json.loads(shown.output)["traces"][0]
    assert top["episode_id"] == episode_id and top["instruction"] == episode.instruction


def test_an_unknown_world_and_a_bad_env_option_are_clear_errors() -> None:
    result = runner.invoke(app, ["run", "--task", "tool.wifi", "--env", "webb"])
    assert result.exit_code == 2 and "unknown world 'webb'" in result.output
    result = runner.invoke(app, ["run", "--task", "tool.wifi", "--env-option", "noequals"])
    assert result.exit_code == 2 and "--env-option takes KEY=VALUE" in result.output


def test_a_run_that_gave_up_is_refused_by_build_and_never_breaks_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No KB: the team gives up at once, and the recording is that one "impossible" step.
    recorded, kb = tmp_path / "recorded", tmp_path / "kb"
    gave_up = runner.invoke(
        app, ["run", "--task", "tool.wifi", "--seed", "1", "--record", str(recorded)]
    )
    assert gave_up.exit_code == 0, gave_up.output
    built = runner.invoke(app, ["build", str(recorded), "--kb", str(kb)])
    assert built.exit_code == 0, built.output
    assert "nothing to learn from a run that did not act" in built.output
    assert "built 0 episodes" in built.output and "1 skipped" in built.output
    again = runner.invoke(app, ["run", "--task", "tool.wifi", "--seed", "2", "--kb", str(kb)])
    assert again.exit_code == 0 and again.exception is None, again.output

    # A KB that holds such a trace anyway (built before build refused them): no plan, no crash.
    monkeypatch.setattr(graph_build, "_END_TYPES", frozenset())
    build_from_logs(recorded, tmp_path / "old-kb")
    with KnowledgeBase.open(tmp_path / "old-kb") as old:
        assert old.stats()["traces"] == 1
    args = ["run", "--task", "tool.wifi", "--seed", "2", "--kb", str(tmp_path / "old-kb")]
    old_run = runner.invoke(app, args)
    assert old_run.exit_code == 0 and old_run.exception is None, old_run.output
    assert "success: no" in old_run.output
