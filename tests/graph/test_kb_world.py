"""A knowledge base records the world its logs come from, and refuses another world's."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs.simphone.recorder import record
from guigraph.graph.kb import KnowledgeBase

runner = CliRunner()


def test_web_recordings_are_refused_by_a_simphone_kb(tmp_path: Path) -> None:
    record(tmp_path / "phone", 3, seed=2, noise=0.0)
    kb = tmp_path / "kb"
    built = runner.invoke(
        app, ["build", str(tmp_path / "phone"), "--kb", str(kb), "--split", "all"]
    )
    assert built.exit_code == 0, built.output
    with KnowledgeBase.open(kb) as knowledge:
        assert knowledge.settings.world == "simphone"
        assert knowledge.stats()["settings"]["world"] == "simphone"
        traces = knowledge.stats()["traces"]

    # The same logs as the web world's recorder writes them (its world named in each).
    web = tmp_path / "web"
    data = OdysseyDataset(tmp_path / "phone")
    for episode_id in data.episode_ids():
        source = tmp_path / "phone" / "annotations" / f"{episode_id}.json"
        text = source.read_text().replace('"world": "simphone"', '"world": "web"')
        assert '"world": "web"' in text
        other = "9" + episode_id[1:]  # another episode, not one the KB already has
        text = text.replace(f'"episode_id": "{episode_id}"', f'"episode_id": "{other}"')
        (web / "annotations").mkdir(parents=True, exist_ok=True)
        (web / "annotations" / f"{other}.json").write_text(text)
    (web / "screenshots").symlink_to(tmp_path / "phone" / "screenshots")
    grown = runner.invoke(app, ["build", str(web), "--kb", str(kb), "--split", "all"])
    assert grown.exit_code == 0, grown.output
    assert "was recorded in the web world; this knowledge base holds the simphone world's" in (
        grown.output
    )
    assert "built 0 episodes" in grown.output
    with KnowledgeBase.open(kb) as knowledge:
        assert knowledge.stats()["traces"] == traces and knowledge.settings.world == "simphone"
