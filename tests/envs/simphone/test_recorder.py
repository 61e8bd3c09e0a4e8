"""The recorder's folder: GUIOdyssey layout accepted by the data checker, truth, replays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.data.check import check_dataset
from guigraph.data.odyssey import read_episode, read_split
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.recorder import episode_id, record, replay
from guigraph.envs.simphone.widgets import POPUPS, SCREENS
from guigraph.types import Task

runner = CliRunner()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("simlogs")
    summary = record(
        out,
        episodes=14,
        seed=7,
        device="Small Phone",
        version=2,
        noise=0.3,
        holdout=["multi.weather_message"],
    )
    assert not summary.failures
    return out


def test_the_folder_passes_the_data_checker(logs: Path) -> None:
    assert check_dataset(logs) == []
    assert len(list((logs / "annotations").glob("*.json"))) == 14


def test_split_holds_every_episode_once(logs: Path) -> None:
    split = read_split(logs / "splits" / "random_split.json")
    ids = [p.stem for p in (logs / "annotations").glob("*.json")]
    assert sorted(split["train"] + split["test"]) == sorted(ids)
    assert split["test"] and not set(split["train"]) & set(split["test"])


def test_annotations_carry_boxes_descriptions_and_ui_trees(logs: Path) -> None:
    for path in sorted((logs / "annotations").glob("*.json")):
        raw = json.loads(path.read_text())
        assert len(raw["episode_id"]) == 16 and raw["episode_id"].isdigit()
        assert raw["device_info"]["device_name"] == "Small Phone"
        assert raw["steps"][-1]["action"] == "COMPLETE"
        for step in raw["steps"]:
            assert step["description"] and "ui_elements" in step and step["app"]
            if step["action"] == "CLICK" and isinstance(step["info"], list):
                (x, y), box = step["info"][0], step["sam2_bbox"]
                assert box[0] <= x <= box[2] and box[1] <= y <= box[3]


def test_truth_names_a_real_screen_for_every_step(logs: Path) -> None:
    known = set(SCREENS) | set(POPUPS)
    for path in sorted((logs / "annotations").glob("*.json")):
        raw = json.loads(path.read_text())
        truth = json.loads((logs / "truth" / path.name).read_text())
        assert truth["schema_version"] == 1 and truth["episode_id"] == raw["episode_id"]
        assert [s["step"] for s in truth["steps"]] == list(range(raw["step_length"]))
        assert all(s["screen"] in known for s in truth["steps"])
        assert truth["steps"][-1]["transition"] is None
        for now, after in zip(truth["steps"], truth["steps"][1:], strict=False):
            expected = "jump" if now["screen"] != after["screen"] else "in_page"
            assert now["transition"] == expected
        assert truth["steps"][0]["screen"] == "system.home"


def test_held_out_templates_are_absent(logs: Path) -> None:
    manifest = json.loads((logs / "simphone.json").read_text())
    assert manifest["holdout_templates"] == ["multi.weather_message"]
    assert all(e["task"]["template_id"] != "multi.weather_message" for e in manifest["episodes"])


def test_episodes_read_back_from_disk_replay_to_success(logs: Path) -> None:
    manifest = json.loads((logs / "simphone.json").read_text())
    for entry in manifest["episodes"][:6]:
        episode = read_episode(
            logs / "annotations" / f"{entry['episode_id']}.json", logs / "screenshots"
        )
        env = SimPhone(
            manifest["device"], version=manifest["version"], popup_rate=manifest["popup_rate"]
        )
        task = Task.from_dict(entry["task"])
        replay(env, task, entry["seed"], episode.actions[:-1])
        assert env.task_succeeded(), entry["episode_id"]


def test_episode_ids_are_distinct_16_digit_strings() -> None:
    ids = {episode_id(seed, i) for seed in (0, 7) for i in range(300)}
    assert len(ids) == 600 and all(len(i) == 16 and i.isdigit() for i in ids)


def test_cli_tasks_show_and_record(tmp_path: Path) -> None:
    listed = runner.invoke(app, ["sim", "tasks", "--json"])
    assert listed.exit_code == 0
    rows = json.loads(listed.output)
    assert {"template_id", "category", "apps"} <= set(rows[0])
    png = tmp_path / "screen.png"
    shown = runner.invoke(
        app, ["sim", "show", "--task", "shop.buy", "--seed", "2", "--out", str(png)]
    )
    assert shown.exit_code == 0 and png.read_bytes().startswith(b"\x89PNG")
    assert "shop." in shown.output
    named = runner.invoke(
        app,
        [
            "sim",
            "show",
            "--task",
            "shop.buy",
            "--screen",
            "camera.popup_permission",
            "--out",
            str(png),
        ],
    )
    assert named.exit_code == 0 and "camera.popup_permission" in named.output
    unknown = runner.invoke(
        app, ["sim", "show", "--task", "shop.buy", "--screen", "shop.moon", "--out", str(png)]
    )
    assert unknown.exit_code != 0 and "unknown screen 'shop.moon'" in unknown.output
    out = tmp_path / "rec"
    recorded = runner.invoke(
        app,
        [
            "sim",
            "record",
            "--out",
            str(out),
            "--episodes",
            "3",
            "--seed",
            "1",
            "--device",
            "Pixel Tablet",
            "--noise",
            "0.2",
            "--holdout-templates",
            "tool.wifi,tool.timer",
        ],
    )
    assert recorded.exit_code == 0, recorded.output
    assert "3 episodes" in recorded.output
    assert check_dataset(out) == []


def test_cli_refuses_bad_options(tmp_path: Path) -> None:
    bad_device = runner.invoke(app, ["sim", "record", "--out", str(tmp_path), "--device", "Nokia"])
    assert bad_device.exit_code != 0 and "unknown device" in bad_device.output
    bad_task = runner.invoke(
        app, ["sim", "show", "--task", "nope", "--out", str(tmp_path / "x.png")]
    )
    assert bad_task.exit_code != 0 and "unknown SimPhone template" in bad_task.output


def test_recordings_are_identical_across_processes(tmp_path: Path) -> None:
    """Nothing depends on hash randomization or process state: same seed, same bytes."""
    import filecmp
    import os
    import subprocess
    import sys

    for name, hash_seed in (("a", "1"), ("b", "77")):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "guigraph",
                "sim",
                "record",
                "--out",
                str(tmp_path / name),
                "--episodes",
                "4",
                "--seed",
                "3",
                "--noise",
                "0.4",
            ],
            check=True,
            env=env,
            capture_output=True,
        )
    for sub in ("annotations", "screenshots", "truth", "splits"):
        compared = filecmp.dircmp(tmp_path / "a" / sub, tmp_path / "b" / sub)
        assert not compared.left_only and not compared.right_only
        _, mismatch, errors = filecmp.cmpfiles(
            tmp_path / "a" / sub, tmp_path / "b" / sub, compared.common_files, shallow=False
        )
        assert not mismatch and not errors, mismatch
