import json
from pathlib import Path

import pytest

from guigraph.data.odyssey import (
    OdysseyDataset,
    read_episode,
    write_episode,
    write_split,
)
from guigraph.errors import DatasetError
from guigraph.geometry import BBox, Point, ScreenSize
from guigraph.types import Action, ActionType, Episode, ScrollDirection
from tests.data.conftest import V1_ID, V2_ID, png, v1_episode_json, write_json


def test_v2_episode_written_and_read_back_field_by_field(
    tmp_path: Path, v2_episode: Episode
) -> None:
    path = write_episode(tmp_path, v2_episode)
    assert path == tmp_path / "annotations" / f"{V2_ID}.json"
    back = OdysseyDataset(tmp_path).load(V2_ID)

    assert back.episode_id == V2_ID
    assert back.instruction == v2_episode.instruction
    assert back.category == "Multi_Apps"
    assert back.apps == ("Waze", "Uber")
    assert back.meta_task == v2_episode.meta_task
    assert back.task == v2_episode.task
    assert back.device == v2_episode.device
    assert len(back.steps) == 6
    for original, read in zip(v2_episode.steps, back.steps, strict=True):
        assert read.index == original.index
        assert read.sam2_bbox == original.sam2_bbox
        for name in ("description", "intention", "context", "low_level_instruction", "ps"):
            assert getattr(read, name) == getattr(original, name)
        assert read.observation.screen == ScreenSize(1840, 2208)
        assert read.observation.screenshot is None  # lazy: only the path
        assert read.observation.screenshot_path == (
            tmp_path / "screenshots" / f"{V2_ID}_{read.index}.png"
        )
        assert read.observation.png_bytes() == original.observation.png_bytes()
        assert read.observation.elements == original.observation.elements
        assert read.observation.app == original.observation.app
    # Actions come back equal; the recorded swipe keeps its points, not only its direction.
    assert back.actions == v2_episode.actions
    assert back.steps[2].action.end == Point(510, 200)
    assert back.steps[2].action.direction is ScrollDirection.UP


def test_v2_file_uses_the_dataset_layout(tmp_path: Path, v2_episode: Episode) -> None:
    data = json.loads(write_episode(tmp_path, v2_episode).read_text())
    assert data["step_length"] == 6
    assert data["device_info"] == {
        "product": "felix",
        "release_version": "14",
        "sdk_version": "34",
        "h": 2208,
        "w": 1840,
        "device_name": "Pixel Fold",
    }
    first, typed, home = data["steps"][0], data["steps"][1], data["steps"][4]
    assert first["screenshot"] == f"{V2_ID}_0.png"
    assert (first["action"], first["info"]) == ("CLICK", [[287, 259], [287, 259]])
    assert first["sam2_bbox"] == [271, 233, 298, 277]
    assert (typed["action"], typed["info"], typed["sam2_bbox"]) == ("TEXT", "gym: near me", [])
    assert (home["action"], home["info"]) == ("CLICK", "KEY_HOME")
    assert "ui_elements" not in typed and "app" not in home


def test_v1_episode_reads_with_defaults(tmp_path: Path) -> None:
    write_json(tmp_path / "annotations" / f"{V1_ID}.json", v1_episode_json())
    episode = OdysseyDataset(tmp_path).load(V1_ID)

    assert episode.category == "Web_Shopping"
    assert episode.instruction == "Order a pair of socks on Amazon."
    assert episode.apps == ("Amazon",)
    assert episode.task == "Buy socks on Amazon"
    assert episode.device.name == "Pixel 8 Pro"
    assert episode.device.sdk_version == "34"
    assert episode.device.screen == ScreenSize(1344, 2992)
    assert episode.actions == (
        Action.click(120, 540),
        Action.type_text("socks"),
        Action.key(ActionType.PRESS_BACK),
        Action(ActionType.IMPOSSIBLE),
    )
    for step in episode.steps:
        assert step.sam2_bbox is None
        assert step.description == step.intention == step.context == ""
        assert step.low_level_instruction == ""
        assert step.observation.elements is None and step.observation.app is None
    assert episode.steps[3].ps == "out of stock"
    # Screenshots are absent on disk, and reading does not need them.
    assert not episode.steps[0].observation.screenshot_path.exists()  # type: ignore[union-attr]


def test_v1_episode_rewritten_as_v2_reads_back_equal(tmp_path: Path) -> None:
    write_json(tmp_path / "src" / "annotations" / f"{V1_ID}.json", v1_episode_json())
    episode = OdysseyDataset(tmp_path / "src").load(V1_ID)
    write_episode(tmp_path / "dst", episode)  # no screenshots to copy: none written
    again = OdysseyDataset(tmp_path / "dst").load(V1_ID)
    assert again.actions == episode.actions
    assert again.device == episode.device
    assert not (tmp_path / "dst" / "screenshots" / f"{V1_ID}_0.png").exists()


def test_screenshots_are_copied_from_paths(tmp_path: Path, v2_episode: Episode) -> None:
    write_episode(tmp_path / "a", v2_episode)
    from_disk = OdysseyDataset(tmp_path / "a").load(V2_ID)
    write_episode(tmp_path / "b", from_disk)
    copied = tmp_path / "b" / "screenshots" / f"{V2_ID}_3.png"
    assert copied.read_bytes() == png((120, 10, 200))
    write_episode(tmp_path / "a", from_disk)  # same place: left alone, not truncated
    assert (tmp_path / "a" / "screenshots" / f"{V2_ID}_3.png").read_bytes() == png((120, 10, 200))


def test_splits_and_listing(tmp_path: Path, v2_episode: Episode) -> None:
    write_episode(tmp_path, v2_episode)
    write_json(tmp_path / "annotations" / f"{V1_ID}.json", v1_episode_json())
    path = write_split(tmp_path, "random", train=[V2_ID], test=[f"{V1_ID}.json"])
    assert json.loads(path.read_text()) == {"train": [f"{V2_ID}.json"], "test": [f"{V1_ID}.json"]}
    write_json(tmp_path / "splits" / "task_split.json", {"train": [V1_ID], "test": []})

    dataset = OdysseyDataset(tmp_path)
    assert len(dataset) == 2
    assert dataset.episode_ids() == sorted([V1_ID, V2_ID])
    assert dataset.episode_ids("random", "train") == [V2_ID]
    assert dataset.episode_ids("random_split", "test") == [V1_ID]
    assert dataset.episode_ids("random") == [V2_ID, V1_ID]
    assert dataset.episode_ids("task", "train") == [V1_ID]  # bare ids accepted
    assert [e.episode_id for e in dataset] == sorted([V1_ID, V2_ID])
    with pytest.raises(DatasetError, match=r"app_split\.json"):
        dataset.episode_ids("app", "test")
    with pytest.raises(DatasetError, match="validation"):
        dataset.episode_ids("random", "validation")


def test_missing_annotations_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="annotations"):
        OdysseyDataset(tmp_path)


def _broken(tmp_path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    data = v1_episode_json()
    edit(data)
    return write_json(tmp_path / "annotations" / f"{V1_ID}.json", data)


@pytest.mark.parametrize(
    ("edit", "field", "expected"),
    [
        (lambda d: d["task_info"].update(category="Games"), "task_info.category", "General_Tool"),
        (lambda d: d["task_info"].pop("instruction"), "task_info.instruction", "a string"),
        (lambda d: d["device_info"].update(w="wide"), "device_info.w", "an integer"),
        (lambda d: d.pop("device_info"), "device_info", "an object"),
        (lambda d: d.update(step_length=5), "step_length", "number of steps (4)"),
        (lambda d: d["steps"][2].update(step=7), "steps[2].step", "position 2"),
        (lambda d: d["steps"][1].update(action="SWIPE"), "steps[1].action", "one of CLICK"),
        (lambda d: d["steps"][0].update(info=[[1, "a"]]), "steps[0].info", "[[x, y]"),
        (lambda d: d["steps"][0].update(sam2_bbox=[5, 5, 1]), "steps[0].sam2_bbox", "[x1, y1"),
        (lambda d: d["steps"][0].update(sam2_bbox=[9, 5, 1, 6]), "steps[0].sam2_bbox", "x1<=x2"),
        (lambda d: d["steps"][3].update(description=3), "steps[3].description", "a string"),
        (lambda d: d.update(steps={}), "steps", "a list of steps"),
    ],
)
def test_malformed_files_name_file_field_and_expectation(
    tmp_path: Path, edit, field: str, expected: str
) -> None:  # type: ignore[no-untyped-def]
    path = _broken(tmp_path, edit)
    with pytest.raises(DatasetError) as caught:
        read_episode(path, tmp_path / "screenshots")
    assert caught.value.field == field
    assert str(path) in str(caught.value) and expected in str(caught.value)


def test_not_json_is_named(tmp_path: Path) -> None:
    path = tmp_path / "annotations" / "x.json"
    path.parent.mkdir()
    path.write_text("{not json")
    with pytest.raises(DatasetError, match="JSON"):
        read_episode(path, tmp_path)


def test_extension_fields_are_validated(tmp_path: Path) -> None:
    path = _broken(tmp_path, lambda d: d["steps"][0].update(ui_elements=[{"text": "no box"}]))
    with pytest.raises(DatasetError, match=r"steps\[0\].ui_elements\[0\]"):
        read_episode(path, tmp_path)
    path = _broken(tmp_path, lambda d: d["steps"][0].update(ui_elements=[{"bbox": [1, 2, 3, 4]}]))
    elements = read_episode(path, tmp_path).steps[0].observation.elements
    assert elements is not None and elements[0].bbox == BBox(1, 2, 3, 4)
