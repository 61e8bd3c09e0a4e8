"""``guigraph import droidbot``: DroidBot output folders, with every quirk of real runs, in the
GUIOdyssey layout; a killed import resumes; readers take real data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.data.check import check_dataset
from guigraph.data.droidbot import ImportSummary, import_droidbot, intent_package
from guigraph.data.fields import Problem
from guigraph.data.odyssey import OdysseyDataset, read_episode
from guigraph.envs.simphone.droidbot_writer import WriterSettings, write_droidbot
from guigraph.envs.simphone.recorder import record
from guigraph.eval.matching import ACTION_CORRECT, ACTION_FAIL, match_step
from guigraph.eval.steps import predicted_step
from guigraph.graph.build import GraphBuilder
from guigraph.graph.kb import KnowledgeBase
from guigraph.graph.truth import check
from guigraph.types import ActionType, ScrollDirection


@pytest.fixture(scope="module")
def droidbot_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two DroidBot folders from 8 SimPhone episodes, one event in eight lost."""
    logs = tmp_path_factory.mktemp("simphone")
    record(logs, episodes=8, seed=3, noise=0.1)
    settings = WriterSettings(episodes_per_folder=4, lost_event_rate=0.12, seed=1)
    return write_droidbot(logs, tmp_path_factory.mktemp("droidbot"), settings)


def test_writer_has_the_quirks_of_real_runs(droidbot_runs: list[Path]) -> None:
    folder = droidbot_runs[0]
    assert (folder / "utg.js").read_text().startswith("var utg =")
    events = [json.loads(p.read_text()) for p in sorted((folder / "events").glob("*.json"))]
    assert {"start_state", "stop_state", "event", "tag"} <= set(events[0])
    kinds = {e["event"]["event_type"] for e in events}
    assert {"kill_app", "touch"} <= kinds
    states = sorted((folder / "states").glob("state_*.json"))
    named = {e[k] for e in events for k in ("start_state", "stop_state")}
    assert len(states) < len(named) + 1 < 2 * len(events)  # a state file only when first seen
    views = [v for p in states for v in json.loads(p.read_text())["views"]]
    assert any(v["resource_id"] == "android:id/content" for v in views)
    inverted = [v for v in views if v["bounds"][1][0] < v["bounds"][0][0]]
    assert inverted
    jpeg = next((folder / "states").glob("screen_*.jpg")).read_bytes()
    assert jpeg.startswith(b"\xff\xd8\xff")


def test_import_with_every_quirk_passes_check_and_builds(
    droidbot_runs: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "logs"
    summary = import_droidbot(droidbot_runs, out)
    assert summary.episodes and summary.dropped_elements > 0 and summary.clipped_elements > 0
    warnings: list[Problem] = []
    assert check_dataset(out, warnings) == []
    assert any("JPEG" in w.expected and "EXIF" in w.expected for w in warnings)
    dataset = OdysseyDataset(out)
    episodes = list(dataset)
    assert len(episodes) > len(droidbot_runs) * 4  # restarts and lost events cut episodes
    steps = [s for e in episodes for s in e.steps]
    assert all(e.steps[-1].action.type is ActionType.COMPLETE for e in episodes)
    opened = [s.action for s in steps if s.action.type is ActionType.OPEN_APP]
    assert opened and all(a.app and a.app.startswith("com.simphone.") for a in opened)
    assert any(s.observation.activity for s in steps)
    assert any(s.observation.screenshot_path.suffix == ".jpg" for s in steps)  # type: ignore[union-attr]
    kb = KnowledgeBase.create(tmp_path / "kb")
    built = GraphBuilder(kb).build(
        [(i, lambda i=i: dataset.load(i)) for i in dataset.episode_ids()]
    )
    assert built.added == len(episodes) and not built.skipped
    report = check(kb, out)
    assert report.steps == len(steps) and report.purity >= 0.9


def test_import_and_build_from_the_command_line(droidbot_runs: list[Path], tmp_path: Path) -> None:
    out, kb = tmp_path / "logs", tmp_path / "kb"
    runner = CliRunner()
    result = runner.invoke(app, ["import", "droidbot", *map(str, droidbot_runs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "imported" in result.output
    assert runner.invoke(app, ["data", "check", str(out)]).exit_code == 0
    built = runner.invoke(app, ["build", str(out), "--kb", str(kb), "--split", "all"])
    assert built.exit_code == 0 and "0 skipped" in built.output, built.output
    checked = runner.invoke(app, ["kb", "check", str(kb), "--truth", str(out)])
    assert checked.exit_code == 0 and "purity" in checked.output
    missing = runner.invoke(app, ["import", "droidbot", str(tmp_path), "--out", str(out)])
    assert missing.exit_code == 2 and "events/" in missing.output


def test_a_killed_import_resumes(droidbot_runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "logs"
    complete = import_droidbot(droidbot_runs, tmp_path / "once")

    class Killed(Exception):
        pass

    def kill_after_three(episode_id: str) -> None:
        if len(list((out / "annotations").glob("*.json"))) >= 3:
            raise Killed

    with pytest.raises(Killed):
        import_droidbot(droidbot_runs, out, on_episode=kill_after_three)
    # A half-written next episode: its screenshots and a temporary annotation.
    (out / "annotations" / ".x.json.tmp").write_text("{")
    resumed = import_droidbot(droidbot_runs, out)
    assert resumed.already_imported == 3
    assert len(resumed.episodes) + 3 == len(complete.episodes)
    names = sorted(p.name for p in (out / "annotations").glob("*.json"))
    assert names == sorted(p.name for p in (tmp_path / "once" / "annotations").glob("*.json"))
    assert check_dataset(out) == []


def test_events_become_guiodyssey_actions() -> None:
    from guigraph.data.droidbot import _action

    state = {"width": 1000, "height": 2000}
    view = {"bounds": [[0, 500], [1000, 1500]]}
    scroll = _action({"event_type": "scroll", "view": view, "direction": "DOWN"}, state)
    assert scroll is not None and scroll.direction is ScrollDirection.UP  # finger goes up
    sideways = _action({"event_type": "scroll", "view": view, "direction": "RIGHT"}, state)
    assert sideways is not None and sideways.direction is ScrollDirection.LEFT
    touch = _action({"event_type": "touch", "x": None, "y": None, "view": view}, state)
    assert touch is not None and touch.point is not None and touch.point.y == 500
    key = _action({"event_type": "key", "name": "BACK"}, state)
    assert key is not None and key.type is ActionType.PRESS_BACK
    assert _action({"event_type": "key", "name": "MENU"}, state) is None
    assert intent_package("am start -S -n com.ex.app/.Main") == "com.ex.app"
    assert intent_package("am start com.ex.app/com.ex.app.Main") == "com.ex.app"
    assert intent_package("am force-stop com.ex.app") == ""


def test_readers_clip_or_drop_bad_elements_never_the_episode(tmp_path: Path) -> None:
    from guigraph.data.odyssey import write_episode
    from tests.data.conftest import make_v2_episode

    path = write_episode(tmp_path, make_v2_episode())
    data = json.loads(path.read_text())
    data["steps"][0]["ui_elements"] = [
        {"bbox": [10, 10, 200, 80], "text": "ok"},
        {"bbox": [600, 900, 500, 800], "text": "inverted"},
        {"bbox": [1100, 1200, 1300, 1400], "text": "off screen"},
        {"bbox": [-40, 900, 300, 1000], "text": "partly off"},
    ]
    path.write_text(json.dumps(data))
    episode = read_episode(path, tmp_path / "screenshots")
    elements = episode.steps[0].observation.elements or ()
    assert [e.text for e in elements] == ["ok", "partly off"]
    assert elements[1].bbox.x1 == 0
    warnings: list[Problem] = []
    problems = check_dataset(tmp_path, warnings)
    assert not [p for p in problems if "ui_elements" in (p.field or "")]
    assert len([w for w in warnings if "ui_elements" in (w.field or "")]) == 3


def test_open_app_ground_truth_is_scored_on_its_type(
    droidbot_runs: list[Path], tmp_path: Path
) -> None:
    """As the official evaluator scores an action type it does not know: never a crash."""
    import_droidbot(droidbot_runs, tmp_path / "logs")
    dataset = OdysseyDataset(tmp_path / "logs")
    for episode in dataset:
        for step in episode.steps:
            if step.action.type is ActionType.OPEN_APP:
                record_ = predicted_step(episode, step.index, "CLICK: (500, 500)")
                assert record_.gt == f"OPEN_APP: {step.action.app}"
                assert match_step(record_.pred, record_.gt, None) == ACTION_FAIL
                assert match_step("OPEN_APP: anything", record_.gt, None) == ACTION_CORRECT
                assert match_step("OPEN_APP: x", record_.gt, None, mode="strict") == ACTION_CORRECT
                return
    pytest.fail("no OPEN_APP step imported")


def test_summary_counts_repairs() -> None:
    from guigraph.data.droidbot import view_element
    from guigraph.geometry import ScreenSize

    summary = ImportSummary(Path("."))
    screen = ScreenSize(100, 200)
    assert view_element({"bounds": [[50, 50], [10, 10]]}, screen, summary) is None
    clipped = view_element({"bounds": [[-5, 0], [50, 250]], "class": "x.EditText"}, screen, summary)
    assert clipped is not None and clipped.editable and clipped.bbox.y2 == 1000
    assert view_element({"bounds": [[0, 0], [5, 5]], "visible": False}, screen, summary) is None
    assert (summary.dropped_elements, summary.clipped_elements) == (1, 1)


def test_broken_files_cost_their_events_not_the_run(
    droidbot_runs: list[Path], tmp_path: Path
) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(droidbot_runs[0], run)
    events = sorted((run / "events").glob("*.json"))
    events[3].write_text("{not json")
    states = sorted((run / "states").glob("state_*.json"))
    states[2].write_text(json.dumps({"state_str": "x", "views": []}))
    summary = import_droidbot([run], tmp_path / "logs")
    assert summary.episodes and summary.bad_states
    assert any(name == events[3].name for _, name, _ in summary.cuts)
    assert (
        "foreground_activity" in summary.bad_states[0] and states[2].name in summary.bad_states[0]
    )
    assert check_dataset(tmp_path / "logs") == []


def test_a_missing_screenshot_is_said_and_never_linked(
    droidbot_runs: list[Path], tmp_path: Path
) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(droidbot_runs[0], run)
    lost = sorted((run / "states").glob("screen_*"))[3]
    lost.unlink()
    out = tmp_path / "logs"
    result = CliRunner().invoke(app, ["import", "droidbot", str(run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    state = lost.name.replace("screen_", "state_").rsplit(".", 1)[0] + ".json"
    assert f"{state} has no screenshot" in result.output
    data = OdysseyDataset(out)
    for episode_id in data.episode_ids():
        raw = json.loads((out / "annotations" / f"{episode_id}.json").read_text())
        for step in raw["steps"]:
            assert (out / "screenshots" / step["screenshot"]).is_file(), step["screenshot"]
    assert check_dataset(out) == []
