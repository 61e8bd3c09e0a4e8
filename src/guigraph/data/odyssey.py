"""GUIOdyssey folders: read episodes lazily, write them back in the same layout.

A folder holds ``annotations/<id>.json``, ``screenshots/<id>_<step>.png`` and
``splits/<name>_split.json`` (see ``docs/evaluation.md`` and the dataset's own docs). Version 1
files lack the per-step ``description``/``intention``/``context``/``low_level_instruction`` and
``sam2_bbox``; they read the same way. Screenshots are never opened here: an ``Observation``
carries the path and the image is read when someone asks for it.

Two optional per-step fields extend the format for worlds that have a UI tree (the simulated
phone, a real device): ``ui_elements`` (``UIElement.to_dict()`` list) and ``app`` (the app in
the foreground). The real dataset lacks them, and readers treat them as optional.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from guigraph.data.episode_json import (
    ANNOTATION_TEXTS,
    episode_to_json,
    parse_episode,
    screenshot_name,
    step_screenshot_name,
)
from guigraph.data.fields import FieldReader
from guigraph.errors import DatasetError
from guigraph.types import Episode, Observation

logger = logging.getLogger(__name__)

ANNOTATIONS = "annotations"
SCREENSHOTS = "screenshots"
SPLITS = "splits"
SPLIT_PARTS = ("train", "test")

__all__ = [
    "ANNOTATION_TEXTS",
    "OdysseyDataset",
    "episode_to_json",
    "parse_episode",
    "read_episode",
    "read_split",
    "screenshot_name",
    "write_episode",
    "write_split",
]


def load_json(path: Path, reader: FieldReader) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        reader.fail(None, "an existing file", "nothing")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        reader.fail(None, "a UTF-8 JSON document", str(exc))
    return None


def read_episode(annotation_path: Path, screenshots_dir: Path, *, elements: bool = True) -> Episode:
    """One episode file as an ``Episode``; DatasetError at the first problem found."""
    reader = FieldReader(annotation_path)
    data = load_json(Path(annotation_path), reader)
    episode = parse_episode(data, reader, screenshots_dir, elements=elements)
    assert episode is not None  # a non-collecting reader raises instead of returning None
    if reader.warnings:
        first = reader.warnings[0]
        logger.warning(
            "%s: %d UI element(s) clipped or dropped (first: %s %s)",
            annotation_path, len(reader.warnings), first.field, first.message,
        )  # fmt: skip
    return episode


class OdysseyDataset:
    """A GUIOdyssey folder. Lists episode ids cheaply; reads an episode only when asked."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.annotations = self.root / ANNOTATIONS
        self.screenshots = self.root / SCREENSHOTS
        if not self.annotations.is_dir():
            raise DatasetError(self.annotations, None, "a folder of <episode_id>.json files")
        self._all_ids: list[str] | None = None

    def _ids(self) -> list[str]:
        if self._all_ids is None:
            self._all_ids = sorted(p.stem for p in self.annotations.glob("*.json"))
        return self._all_ids

    def split_path(self, split: str) -> Path:
        name = split if split.endswith("_split") else f"{split}_split"
        return self.root / SPLITS / f"{name}.json"

    def episode_ids(self, split: str | None = None, part: str | None = None) -> list[str]:
        """All episode ids, or those of a split (``"random"``) and part (``"train"``/``"test"``)."""
        if split is None:
            if part is not None:
                raise ValueError("a part needs a split")
            return list(self._ids())
        path = self.split_path(split)
        parts = read_split(path)
        if part is not None:
            if part not in parts:
                raise DatasetError(path, part, f"one of the parts {', '.join(SPLIT_PARTS)}")
            return list(parts[part])
        return [episode for name in SPLIT_PARTS for episode in parts[name]]

    def load(self, episode_id: str, *, elements: bool = True) -> Episode:
        """The episode of ``annotations/<episode_id>.json``; ``elements=False`` skips its UI
        trees (see ``parse_episode``).

        The file name is the key (split files and resumed builds name files), so a file whose
        ``episode_id`` says otherwise is refused rather than stored under another key.
        """
        path = self.annotations / f"{episode_id}.json"
        episode = read_episode(path, self.screenshots, elements=elements)
        if episode.episode_id != episode_id:
            raise DatasetError(
                path, "episode_id", f"the file's name {episode_id!r}", episode.episode_id
            )
        return episode

    def __iter__(self) -> Iterator[Episode]:
        return (self.load(episode_id) for episode_id in self.episode_ids())

    def __len__(self) -> int:
        return len(self._ids())


def split_entry_id(entry: str) -> str:
    """Split files name annotation files (``<id>.json``); a bare id is accepted too."""
    return entry[:-5] if entry.endswith(".json") else entry


def read_split(path: Path, reader: FieldReader | None = None) -> dict[str, list[str]]:
    """A split file's parts as lists of episode ids."""
    reader = reader or FieldReader(path)
    data = load_json(Path(path), reader)
    if not isinstance(data, Mapping):
        if data is not None:
            reader.fail(None, 'an object {"train": [...], "test": [...]}', type(data).__name__)
        return {part: [] for part in SPLIT_PARTS}
    parts: dict[str, list[str]] = {}
    for part in SPLIT_PARTS:
        entries = data.get(part, [])
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            reader.fail(part, "a list of annotation file names", entries)
            entries = []
        parts[part] = [split_entry_id(entry) for entry in entries]
    return parts


def write_episode(root: Path, episode: Episode) -> Path:
    """Write ``annotations/<id>.json`` and each step's screenshot; returns the annotation path.

    A step whose observation has no screenshot (or a path to a file that does not exist, as in
    an annotations-only download) gets none on disk; ``guigraph data check`` reports it. A
    screenshot already at its destination is left alone.
    """
    root = Path(root)
    (root / ANNOTATIONS).mkdir(parents=True, exist_ok=True)
    (root / SCREENSHOTS).mkdir(parents=True, exist_ok=True)
    for step in episode.steps:
        target = root / SCREENSHOTS / step_screenshot_name(episode.episode_id, step)
        _write_screenshot(step.observation, target)
    path = root / ANNOTATIONS / f"{episode.episode_id}.json"
    text = json.dumps(episode_to_json(episode), ensure_ascii=False, indent=1)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def _write_screenshot(observation: Observation, target: Path) -> None:
    if observation.screenshot is not None:
        target.write_bytes(observation.screenshot)
    elif observation.screenshot_path is not None:
        source = Path(observation.screenshot_path)
        # An annotations-only copy has no images to carry over; `data check` reports them.
        if source.exists() and source.resolve() != target.resolve():
            shutil.copyfile(source, target)


def write_split(root: Path, name: str, train: list[str], test: list[str]) -> Path:
    """Write ``splits/<name>_split.json`` naming annotation files, as the dataset does."""
    path = Path(root) / SPLITS / f"{name.removesuffix('_split')}_split.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "train": [f"{split_entry_id(e)}.json" for e in train],
        "test": [f"{split_entry_id(e)}.json" for e in test],
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path
