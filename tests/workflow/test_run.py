"""Export, check and run on SimPhone with the run's shared KB (tests/conftest.py): version 1
replays with nothing healed, version 2 (renamed ids and labels) heals and says so, --heal off
stops at the broken step, --update writes the healed file with a diff, a CSV runs per row and
resumes, and a file edited by hand still runs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.envs.base import Env, StepResult
from guigraph.envs.simphone.env import SimPhone
from guigraph.types import Action, ActionType, Observation, Task
from guigraph.workflow.heal import GraphHealer
from guigraph.workflow.runner import RunResult, run_workflow
from guigraph.workflow.schema import parse_workflow

runner = CliRunner()
#: Tasks the shared 40-episode KB plans right (one recorded episode each).
WIFI = ("tool.wifi", "11")
BRIGHTNESS = ("tool.brightness", "11")


def _export(kb: Path, out: Path, task: tuple[str, str]) -> Path:
    result = runner.invoke(
        app,
        ["workflow", "export", str(kb), "--task", task[0], "--seed", task[1], "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def wifi(simphone_kb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _export(simphone_kb, tmp_path_factory.mktemp("wf") / "wifi.yaml", WIFI)


@pytest.fixture(scope="module")
def brightness(simphone_kb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _export(simphone_kb, tmp_path_factory.mktemp("wf") / "brightness.yaml", BRIGHTNESS)


def _run(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["workflow", "run", *args, "--json"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)


def test_check_lists_typed_parameters_and_steps(brightness: Path) -> None:
    result = runner.invoke(app, ["workflow", "check", str(brightness), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    (param,) = info["parameters"]
    assert param["type"] == "choice" and param["examples"][0] == "100%"
    assert {"30%", "50%", "70%", "100%"} <= set(param["options"])
    assert [s["action"] for s in info["steps"]] == ["tap", "tap", "tap"]
    assert info["steps"][-1]["summary"] == "tap '{" + param["name"] + "}'"
    text = brightness.read_text()
    assert "position:" in text and "box:" in text and "expect:" in text


def test_version_1_replays_without_healing_or_model(wifi: Path, simphone_kb: Path) -> None:
    code, summary = _run(str(wifi), "--kb", str(simphone_kb))
    assert code == 0 and summary["successes"] == 1
    assert summary["healed_steps"] == [] and summary["model_calls"] == 0


def test_version_2_heals_and_lists_every_healed_step(
    wifi: Path, simphone_kb: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    args = [str(wifi), "--kb", str(simphone_kb), "--env-option", "version=2", "--out", str(run)]
    code, summary = _run(*args, "--update")
    assert code == 0 and summary["successes"] == 1 and summary["model_calls"] == 0
    healed = summary["healed_steps"]
    assert healed and all(h["reason"] and h["how"] for h in healed)
    assert json.loads((run / "summary.json").read_text())["healed_steps"] == healed
    assert (run / "results.csv").read_text().splitlines()[
        0
    ] == "row,success,steps,healed steps,seconds"
    new = wifi.with_name("wifi.healed.yaml")
    diff = wifi.with_name("wifi.healed.diff").read_text()
    assert new.is_file() and "+++" in diff and "+    - id: settings:id/switch_airplane" in diff
    report = runner.invoke(app, ["report", str(run)])
    assert report.exit_code == 0, report.output
    assert f"step {healed[0]['step']}" in report.output and "healed" in report.output
    # The revised file replays version 2 with nothing left to heal.
    code, again = _run(str(new), "--env-option", "version=2", "--heal", "off")
    assert code == 0 and again["successes"] == 1


def test_heal_off_stops_at_the_broken_step_and_names_it(wifi: Path) -> None:
    code, summary = _run(str(wifi), "--env-option", "version=2", "--heal", "off")
    assert code == 1 and summary["successes"] == 0
    (failure,) = summary["failures"]
    assert failure["failure"].startswith("step ") and "(tap " in failure["failure"]


def _required(workflow: Path, out: Path) -> Path:
    """The workflow with its parameter made required (no default), as a person edits it."""
    text = workflow.read_text()
    lines = [line for line in text.splitlines() if not line.startswith("  default:")]
    out.write_text("\n".join(lines).replace("  required: false", "  required: true") + "\n")
    return out


def test_a_csv_runs_per_row_names_a_missing_column_first_and_resumes(
    brightness: Path, tmp_path: Path
) -> None:
    workflow = _required(brightness, tmp_path / "wf.yaml")
    name = json.loads(runner.invoke(app, ["workflow", "check", str(workflow), "--json"]).output)[
        "parameters"
    ][0]["name"]
    bad = tmp_path / "bad.csv"
    bad.write_text("level\n30%\n")
    result = runner.invoke(app, ["workflow", "run", str(workflow), "--data", str(bad)])
    assert result.exit_code == 2 and f"missing: {name}" in result.output
    assert "row 1" not in result.output  # named before anything ran
    rows = tmp_path / "rows.csv"
    rows.write_text(f"{name}\n30%\n70%\n100%\n")
    run = tmp_path / "run"
    # A run killed while row 2 acted: row 1 done, row 2 started.
    _, summary = _run(str(workflow), "--data", str(rows), "--out", str(run), "--concurrency", "2")
    assert summary["rows"] == 3 and summary["successes"] == 3
    lines = (run / "rows.jsonl").read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["row"] == 1]
    (run / "rows.jsonl").write_text(
        "\n".join([*kept, json.dumps({"event": "started", "row": 2})]) + "\n"
    )
    _, summary = _run(str(workflow), "--data", str(rows), "--out", str(run))
    assert summary["rows"] == 3 and summary["interrupted"] == 1 and summary["successes"] == 2
    events = [json.loads(line) for line in (run / "rows.jsonl").read_text().splitlines()]
    started = [e["row"] for e in events if e["event"] == "started"]
    assert started == [1, 2, 3]  # each row started once: row 2 was never run again
    table = (run / "results.csv").read_text().splitlines()
    assert len(table) == 4 and table[2].startswith("2,False")


def test_round_trip_a_hand_edited_locator_and_parameter_runs(
    brightness: Path, tmp_path: Path
) -> None:
    from guigraph.envs.simphone.env import SimPhone
    from guigraph.workflow.runner import run_workflow
    from guigraph.workflow.schema import load_workflow

    text = brightness.read_text()
    name = load_workflow(brightness).parameters[0].name
    edited = text.replace("id: settings:id/open_display", "id: settings:id/display_row")
    edited = edited.replace(f"name: {name}", "name: level").replace("{" + name + "}", "{level}")
    assert edited.count("{level}") == 1 and "display_row" in edited
    path = tmp_path / "edited.yaml"
    path.write_text(edited)
    check = runner.invoke(app, ["workflow", "check", str(path)])
    assert check.exit_code == 0 and "parameter level: choice" in check.output
    code, summary = _run(str(path), "--param", "level=30%")
    assert code == 0 and summary["successes"] == 1
    env = SimPhone(popup_rate=0.0)
    workflow = load_workflow(path)
    task = env.make_task(workflow.world.task or "", workflow.world.seed)
    result = run_workflow(workflow, env, {"level": "30%"}, task, workflow.world.seed)
    assert result.completed and env.world.data.settings["brightness"] == 30


def test_a_healed_run_is_recorded_and_built_into_a_kb(
    wifi: Path, simphone_kb: Path, tmp_path: Path
) -> None:
    demos, kb = tmp_path / "demos", tmp_path / "kb"
    args = [str(wifi), "--kb", str(simphone_kb), "--env-option", "version=2"]
    code, summary = _run(*args, "--record", str(demos))
    assert code == 0 and summary["healed_steps"] and summary["recorded"] == str(demos)
    (episode,) = (demos / "annotations").glob("*.json")
    data = json.loads(episode.read_text())
    assert "Wi-Fi" in json.dumps(data) and len(data["steps"]) >= 3
    built = runner.invoke(app, ["build", str(demos), "--kb", str(kb)])
    assert built.exit_code == 0, built.output
    stats = json.loads(runner.invoke(app, ["kb", "stats", str(kb), "--json"]).output)
    assert stats["traces"] == 1
    # A run the runner gives up on is no demonstration.
    failed = tmp_path / "failed"
    code, _ = _run(str(wifi), "--env-option", "version=2", "--heal", "off", "--record", str(failed))
    assert code == 1 and not list((failed / "annotations").glob("*.json"))


def test_heal_model_asks_the_model_which_control_and_counts_its_calls(
    wifi: Path, tmp_path: Path
) -> None:
    import re

    from guigraph.testing.server import FakeModelServer, Reply

    # Without its description, the Wi-Fi section's row has nothing version 2 kept.
    edited = tmp_path / "wifi.yaml"
    edited.write_text(wifi.read_text().replace("    description: Wi-Fi, mobile data\n", ""))

    def oracle(body: dict) -> Reply:
        prompt = body["messages"][-1]["content"]
        text = prompt if isinstance(prompt, str) else " ".join(p.get("text", "") for p in prompt)
        index = re.search(r"\[(\d+)\] \w+ 'Connections'", text)
        answer = {"element": int(index.group(1)) if index else None, "reason": "renamed"}
        return Reply.of(json.dumps(answer))

    with FakeModelServer(oracle) as server:
        args = ["--env-option", "version=2", "--heal", "model"]
        model = ["--model", "test-model", "--base-url", server.base_url]
        code, summary = _run(str(edited), *args, *model)
        assert server.request_count == summary["model_calls"] == 1
    assert code == 0 and summary["successes"] == 1
    (healed,) = [h for h in summary["healed_steps"] if h["by"] == "model"]
    assert "Connections" in healed["how"] and healed["target"]["text"] == "Connections"
    # Without a model to ask, --heal model is refused before anything runs.
    result = runner.invoke(app, ["workflow", "run", str(edited), "--heal", "model"])
    assert result.exit_code == 2 and "--model" in result.output


def test_the_graph_team_takes_over_what_a_step_cannot_heal(
    wifi: Path, simphone_kb: Path, tmp_path: Path
) -> None:
    # A hand edit taps a value that no screen shows: no control may stand in for a value.
    text = wifi.read_text().replace("    text: Network & internet\n", "    text: '{section}'\n")
    text = text.replace("    id: settings:id/open_wifi\n", "").replace(
        "    description: Wi-Fi, mobile data\n", ""
    )
    text = text.replace("steps:\n", "parameters:\n- name: section\n  default: Nowhere\nsteps:\n", 1)
    edited = tmp_path / "edited.yaml"
    edited.write_text(text)
    code, summary = _run(str(edited), "--heal", "off")
    assert code == 1 and summary["failures"][0]["failure"].startswith("step 2 (tap 'Nowhere')")
    code, summary = _run(str(edited), "--kb", str(simphone_kb))
    assert code == 0 and summary["successes"] == 1 and summary["model_calls"] == 0
    (healed,) = summary["healed_steps"]
    assert healed["by"] == "graph team" and healed["step"] == 2
    assert "'Nowhere' is not on this screen" in healed["how"] and healed["actions"]


def test_allow_origin_reaches_a_web_world_and_is_refused_elsewhere(
    wifi: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = runner.invoke(app, ["workflow", "run", str(wifi), "--allow-origin", "example.org"])
    assert refused.exit_code == 2 and "the simphone world has none" in refused.output
    from guigraph import envs

    made: list[dict[str, object]] = []

    def fake_make(name: str, **options: object) -> object:
        made.append({"world": name, **options})
        raise ValueError("no browser in this test")

    monkeypatch.setattr(envs, "make", fake_make)
    args = ["workflow", "run", str(wifi), "--env", "web", "--allow-origin", "example.org"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "no browser in this test" in result.output
    assert made and made[0]["world"] == "web" and made[0]["allow_origins"] == ["example.org"]


#: Text a contact: the chat list lists only contacts with a conversation, so the tap on the
#: contact has the recorded way to any other one as its otherwise steps (as an export writes).
MESSAGE = """\
schema_version: 1
name: text-a-contact
world: {seed: 3}
parameters:
- name: contact
  default: Alice
- name: body
  default: On my way
steps:
- action: tap
  target: {id: 'system:id/app_messages', text: Messages}
- action: tap
  target: {text: '{contact}', role: button}
  expect:
    app: Messages
    shows: [{id: 'messages:id/send'}]
  otherwise:
  - action: tap
    target: {id: 'messages:id/new_chat', text: +}
  - action: tap
    target: {id: 'messages:id/to_query', text: 'To: name or number', role: field}
  - action: type
    value: '{contact}'
  - action: tap
    target: {text: '{contact}', role: button}
- action: tap
  target: {id: 'messages:id/compose', text: Text message, role: field}
- action: type
  value: '{body}'
- action: tap
  target: {id: 'messages:id/send', text: Send}
  expect:
    app: Messages
    shows: [{text: 'Me: {body}'}]
"""


def _message(contact: str) -> tuple[RunResult, SimPhone]:

    env = SimPhone(popup_rate=0.0)
    values = {"contact": contact, "body": "On my way"}
    result = run_workflow(parse_workflow(MESSAGE), env, values, Task("t", "text"), 3, GraphHealer())
    return result, env


def test_a_value_no_screen_lists_takes_the_steps_otherwise_way_not_healing() -> None:
    from guigraph.envs.simphone.templates import sent

    listed, env = _message("Alice")
    assert listed.completed and not listed.alternatives and not listed.healings
    assert sent(env.world, "Alice", "On my way")
    assert "Hiro" not in env.world.data.chats
    unlisted, env = _message("Hiro")
    assert unlisted.completed and not unlisted.healings and unlisted.model_calls == 0
    (taken,) = unlisted.alternatives
    assert taken["step"] == 2 and "'Hiro'" in str(taken["reason"])
    assert taken["took"] == ["tap '+'", "tap 'To: name or number'", "type 'Hiro'", "tap 'Hiro'"]
    assert sent(env.world, "Hiro", "On my way")


def test_update_revises_a_healed_otherwise_step_in_place(tmp_path: Path) -> None:
    from guigraph.workflow.schema import load_workflow

    path = tmp_path / "message.yaml"
    path.write_text(MESSAGE)
    check = json.loads(runner.invoke(app, ["workflow", "check", str(path), "--json"]).output)
    assert check["steps"][1]["otherwise"] == [
        "tap '+'", "tap 'To: name or number'", "type '{contact}'", "tap '{contact}'"
    ]  # fmt: skip
    args = ["--param", "contact=Hiro", "--env-option", "version=2", "--update"]
    code, summary = _run(str(path), *args)
    assert code == 0 and summary["successes"] == 1
    assert [a["step"] for a in summary["alternatives"]] == [2]
    # '+' became another control in version 2: healed as a step of step 2's otherwise way.
    assert any(h.get("otherwise_step") == 1 and h["step"] == 2 for h in summary["healed_steps"])
    new = load_workflow(tmp_path / "message.healed.yaml")
    assert len(new.steps) == 5 and len(new.steps[1].otherwise) == 4
    plus = new.steps[1].otherwise[0].target
    assert plus is not None and plus.id != "messages:id/new_chat"
    code, again = _run(str(tmp_path / "message.healed.yaml"), *args[:4], "--heal", "off")
    assert code == 0 and again["successes"] == 1 and again["healed_steps"] == []


class _LateScreen:
    """SimPhone whose screen after the first tap arrives one observation late: that tap
    observes the screen before it, as a page still coming does on a loaded machine."""

    def __init__(self, env: SimPhone) -> None:
        self.env = env
        self.late = True
        self.shown: Observation | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def reset(self, task: Task, seed: int) -> Observation:
        self.shown = self.env.reset(task, seed)
        return self.shown

    def step(self, action: Action) -> StepResult:
        result = self.env.step(action)
        stale, self.shown = self.shown, result.observation
        if self.late and action.type is ActionType.CLICK and stale is not None:
            self.late = False
            return replace(result, observation=stale)
        return result


def test_a_screen_that_lands_late_is_waited_for_not_healed() -> None:
    from guigraph.envs.simphone.templates import sent

    env = SimPhone(popup_rate=0.0)
    values = {"contact": "Alice", "body": "On my way"}
    late = cast(Env, _LateScreen(env))
    result = run_workflow(parse_workflow(MESSAGE), late, values, Task("t", "text"), 3)
    assert result.completed and not result.healings, result.failure
    assert sent(env.world, "Alice", "On my way")
    taps = [e for e in result.events if e.kind == "step" and e.action.type is ActionType.CLICK]
    waits = [e for e in result.events if e.action.type is ActionType.WAIT]
    assert len(waits) == 1 and waits[0].step == 1  # one wait, before the contact's tap
    assert len(taps) == 4  # Messages, Alice, the field, Send: none repeated


def test_a_target_that_is_not_there_costs_one_wait() -> None:
    env = SimPhone(popup_rate=0.0)
    values = {"contact": "Alice", "body": "On my way"}
    broken = MESSAGE.replace("messages:id/send', text: Send", "messages:id/gone', text: Gone")
    result = run_workflow(parse_workflow(broken), env, values, Task("t", "text"), 3)
    assert not result.completed and "target not found" in result.failure
    waits = [e for e in result.events if e.action.type is ActionType.WAIT]
    assert len(waits) == 1  # the screen stayed the same over it
