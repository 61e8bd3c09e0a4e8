"""``guigraph import miniwob``: demonstrations MiniWoB++'s own recorder (record.js) wrote in
Chromium from real input events become logs guigraph builds a graph from and the team acts on;
bad files are named in one line each and nothing else is lost."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.data.check import check_dataset
from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs.web.demos import import_demos
from guigraph.envs.web.experts import Player, demonstrate
from guigraph.envs.web.recordjs import Collector, RecordJsWebEnv
from guigraph.eval.world_demo import run_world_case
from guigraph.graph.from_logs import build_from_logs
from guigraph.types import ActionType, Episode

from .conftest import owned_pids

runner = CliRunner()
#: Small demonstrations record.js wrote (tests/envs/web/data/recordjs): a person who clicks
#: the wrong field first and corrects a typo with Backspace, and a radio button.
KEPT = Path(__file__).parent / "data" / "recordjs"


def hesitant_login(env: RecordJsWebEnv, seed: int) -> None:
    """login-user as a person does it: a stray click on the password field first, a typo in
    the username corrected with Backspace, then the rest."""
    task = env.make_task("miniwob/login-user", seed)
    person = Player(env, env.reset(task, seed))
    user, password = task.instruction.split('"')[1::2]
    person.click(html_id="password")
    person.click(html_id="username")
    person.type(user[:-1] + "x")
    person.type("\b" + user[-1])
    person.click(html_id="password")
    person.type(password)
    person.click(html_id="subbtn")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """record.js demonstrations made in Chromium: the scripted person's real mouse and key
    events, posted by the page to a loopback collector."""
    out = tmp_path_factory.mktemp("recordjs")
    with Collector(out, compress=True) as collector:
        env = RecordJsWebEnv(collector, timeout=5.0)
        try:
            for seed in (0, 1):
                demonstrate(env, "login-user", seed)
            hesitant_login(env, 2)
            demonstrate(env, "click-option", 0)
            env.flush()
        finally:
            tag = env.browser.tag
            env.close()
        assert owned_pids(tag) == [], "a Chromium process outlived its environment"
        assert len(collector.saved) == 4
    yield out


def _episodes(logs: Path) -> list[Episode]:
    dataset = OdysseyDataset(logs)
    return [dataset.load(i) for i in dataset.episode_ids()]


def test_real_recordings_become_taps_and_typings(recorded: Path, tmp_path: Path) -> None:
    summary = import_demos([recorded], tmp_path)
    assert (len(summary.imported), summary.bad_files, summary.warnings) == (4, [], [])
    by_task: dict[str, list[Episode]] = {}
    for episode in _episodes(tmp_path):
        by_task.setdefault(episode.meta_task, []).append(episode)
    logins = by_task["miniwob/login-user"]
    hesitant = next(e for e in logins if len(e.steps) == 6)
    kinds = [s.action.type for s in hesitant.steps]
    assert kinds == [ActionType.CLICK, ActionType.CLICK, ActionType.TYPE, ActionType.CLICK,
                     ActionType.TYPE, ActionType.CLICK]  # fmt: skip
    user, password = hesitant.instruction.split('"')[1::2]
    # The typo and its Backspace are one typing of the text they produced.
    assert [s.action.text for s in hesitant.steps if s.action.text] == [user, password]
    first = hesitant.steps[0].observation
    assert first.screenshot_path is None and first.app == "login-user"
    fields = {e.resource_id: e for e in first.elements or ()}
    assert fields["username"].editable and fields["subbtn"].text == "Login"
    # The password typed is an action; the field's value on a screen is never written.
    last = hesitant.steps[-1].observation.elements or ()
    assert next(e for e in last if e.resource_id == "password").text == "••••••••"
    (option,) = by_task["miniwob/click-option"]
    radios = [e for e in option.steps[0].observation.elements or () if e.class_name == "radio"]
    assert radios and all(r.text for r in radios)  # named by their <label>
    assert "no problems" in runner.invoke(app, ["data", "check", str(tmp_path)]).output
    warnings: list = []
    assert check_dataset(tmp_path, warnings) == []
    assert warnings and all("screenshot" in str(w) for w in warnings)


def test_a_graph_from_record_js_demonstrations_runs_the_team(
    recorded: Path, tmp_path: Path
) -> None:
    from guigraph.compiler.index import GraphView
    from guigraph.envs.web.env import WebEnv
    from guigraph.graph.kb import KnowledgeBase

    import_demos([recorded], tmp_path / "logs")
    _, stats = build_from_logs(tmp_path / "logs", tmp_path / "kb")
    assert stats["traces"] == 4
    env = WebEnv(timeout=5.0)
    try:
        with KnowledgeBase.open(tmp_path / "kb") as kb:
            view = GraphView.load(kb)
            row = run_world_case(env, kb, view, "miniwob/login-user", "graph", 1_000_003, 10)
    finally:
        tag = env.browser.tag
        env.close()
    assert owned_pids(tag) == []
    assert row["success"], row


def test_bad_files_are_named_once_and_nothing_else_is_lost(tmp_path: Path) -> None:
    demos = tmp_path / "demos"
    shutil.copytree(KEPT, demos)
    good = sorted(demos.glob("*.json.gz"))
    assert len(good) == 2
    data = json.loads(gzip.decompress(good[0].read_bytes()))
    cut = demos / "cut.json.gz"
    cut.write_bytes(good[0].read_bytes()[:-200])
    (demos / "other-task.json").write_text(json.dumps({**data, "taskName": "make-coffee"}))
    unboxed = json.loads(json.dumps(data))
    for state in unboxed["states"]:
        if state.get("dom"):
            del state["dom"]["children"][0]["left"]  # the task area's box
    (demos / "unboxed.json").write_text(json.dumps(unboxed))
    odd = json.loads(json.dumps(data))
    odd["states"].insert(3, {"time": 5, "action": {"type": "wheel", "timing": 1}, "dom": None})
    (demos / "odd-event.json").write_text(json.dumps(odd))
    (demos / "failed.json").write_text(json.dumps({**data, "reward": -1.0, "time": 1}))
    result = runner.invoke(app, ["import", "miniwob", str(demos), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert sum("cut.json.gz" in line and "cut short" in line for line in lines) == 1
    assert sum("other-task.json" in line and "'make-coffee'" in line for line in lines) == 1
    assert sum("unboxed.json" in line and "without a box" in line for line in lines) == 1
    assert sum("odd-event.json" in line and "'wheel'" in line for line in lines) == 1
    assert "imported 4 demonstrations" in result.output
    assert "1 skipped with reward <= 0" in result.output and "2 bad files" in result.output
    again = runner.invoke(app, ["import", "miniwob", str(demos), "--out", str(tmp_path / "out")])
    assert "imported 0 demonstrations" in again.output and "4 already there" in again.output
    assert len(OdysseyDataset(tmp_path / "out").episode_ids("random", "train")) == 4


def test_a_folder_without_demonstrations_is_an_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["import", "miniwob", str(tmp_path), "--out", str(tmp_path)])
    assert result.exit_code == 2 and "no .json or .json.gz" in result.output


def test_a_step_with_neither_screenshot_nor_elements_is_a_problem(tmp_path: Path) -> None:
    import_demos([KEPT], tmp_path)
    path = next((tmp_path / "annotations").glob("*.json"))
    data = json.loads(path.read_text())
    del data["steps"][0]["ui_elements"]
    path.write_text(json.dumps(data))
    (problem,) = check_dataset(tmp_path)
    assert "steps[0].screenshot" in str(problem) and "ui_elements" in str(problem)
