import json
from pathlib import Path

from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.data.check import check_dataset
from guigraph.data.odyssey import write_episode, write_split
from guigraph.types import Episode
from tests.data.conftest import V1_ID, V2_ID, v1_episode_json, write_json

runner = CliRunner()


def clean_folder(root: Path, episode: Episode) -> Path:
    write_episode(root, episode)
    write_split(root, "random", train=[], test=[V2_ID])
    return root


def test_clean_folder_has_no_problems(tmp_path: Path, v2_episode: Episode) -> None:
    root = clean_folder(tmp_path, v2_episode)
    assert check_dataset(root) == []
    result = runner.invoke(app, ["data", "check", str(root)])
    assert result.exit_code == 0 and "no problems" in result.output


def test_every_problem_in_a_folder_is_reported(tmp_path: Path, v2_episode: Episode) -> None:
    root = clean_folder(tmp_path, v2_episode)
    (root / "screenshots" / f"{V2_ID}_3.png").unlink()
    broken = v1_episode_json()
    broken["task_info"]["category"] = "Games"
    broken["steps"][0]["info"] = [[1200, 540], [1200, 540]]  # off the 0..1000 grid
    broken["steps"][1]["step"] = 5
    broken["steps"][2]["action"] = "SWIPE"
    broken["episode_id"] = "0000000000000000"
    write_json(root / "annotations" / f"{V1_ID}.json", broken)
    (root / "annotations" / "garbage.json").write_text("{oops")
    write_split(root, "task", train=[V2_ID, "9999999999999999"], test=[V2_ID])

    problems = check_dataset(root)
    found = {(Path(p.path).name, p.field) for p in problems}
    assert {
        (f"{V2_ID}.json", "steps[3].screenshot"),
        (f"{V1_ID}.json", "task_info.category"),
        (f"{V1_ID}.json", "steps[0].info"),
        (f"{V1_ID}.json", "steps[1].step"),
        (f"{V1_ID}.json", "steps[2].action"),
        (f"{V1_ID}.json", "episode_id"),
        ("garbage.json", None),
        ("task_split.json", "train[1]"),
        ("task_split.json", "test"),
    } <= found
    # The v1 file also lacks all four screenshots: each is its own problem.
    shots = [
        p
        for p in problems
        if Path(p.path).name == f"{V1_ID}.json" and "screenshot" in (p.field or "")
    ]
    assert len(shots) == 4
    assert all(p.expected and p.path for p in problems)

    result = runner.invoke(app, ["data", "check", str(root), "--json"])
    assert result.exit_code == 1
    reported = json.loads(result.output)
    assert len(reported) == len(problems)
    assert {"path", "field", "expected", "got"} <= set(reported[0])

    table = runner.invoke(app, ["data", "check", str(root)])
    assert table.exit_code == 1
    assert f"{len(problems)} problem(s)" in table.output


def test_missing_folders_are_problems(tmp_path: Path) -> None:
    problems = check_dataset(tmp_path)
    assert len(problems) == 1 and problems[0].path.endswith("annotations")
    write_json(tmp_path / "annotations" / f"{V1_ID}.json", v1_episode_json())
    problems = check_dataset(tmp_path)
    # One problem for the missing screenshots folder, not one per screenshot.
    assert [(Path(p.path).name, p.field) for p in problems] == [
        ("screenshots", None),
        ("splits", None),
    ]


def test_a_corrupt_png_is_a_problem(tmp_path: Path, v2_episode: Episode) -> None:
    root = clean_folder(tmp_path, v2_episode)
    shot = root / "screenshots" / f"{V2_ID}_2.png"
    shot.write_bytes(shot.read_bytes()[:40])  # cut short: the header alone survives
    (root / "screenshots" / f"{V2_ID}_4.png").write_bytes(b"not an image")
    fields = {p.field for p in check_dataset(root)}
    assert fields == {"steps[2].screenshot", "steps[4].screenshot"}


def test_an_episode_without_steps_is_a_problem(tmp_path: Path, v2_episode: Episode) -> None:
    root = clean_folder(tmp_path, v2_episode)
    path = root / "annotations" / f"{V2_ID}.json"
    data = json.loads(path.read_text())
    data["steps"], data["step_length"] = [], 0
    write_json(path, data)
    assert [p.field for p in check_dataset(root)] == ["steps"]


def test_the_table_shows_bracketed_text_as_written(tmp_path: Path, v2_episode: Episode) -> None:
    root = clean_folder(tmp_path, v2_episode)
    path = root / "annotations" / f"{V2_ID}.json"
    data = json.loads(path.read_text())
    data["task_info"]["category"] = "[bold]Games[/bold]"
    write_json(path, data)
    result = runner.invoke(app, ["data", "check", str(root)])
    assert result.exit_code == 1
    assert "[bold]Games[/bold]" in result.output.replace("\n", "")


def test_non_utf8_annotations_name_the_file(tmp_path: Path, v2_episode: Episode) -> None:
    root = clean_folder(tmp_path, v2_episode)
    path = root / "annotations" / f"{V2_ID}.json"
    path.write_bytes(path.read_bytes().replace(b"gym", b"g\xfcm"))
    problems = check_dataset(root)
    assert [(p.path, "UTF-8" in p.expected) for p in problems] == [(str(path), True)]
