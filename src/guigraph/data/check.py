"""Validate a whole GUIOdyssey folder and report every problem, not just the first.

Runs the episode reader in collecting mode (so every file gets the same checks as reading),
then adds what the reader leaves alone because it never opens images or other files:
screenshots on disk, coordinates inside 0..1000, ids that match file names, split files that
name existing episodes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from guigraph.data.episode_json import parse_episode
from guigraph.data.fields import FieldReader, Problem
from guigraph.data.odyssey import (
    ANNOTATIONS,
    SCREENSHOTS,
    SPLIT_PARTS,
    SPLITS,
    load_json,
    read_split,
)
from guigraph.geometry import NORM_MAX

__all__ = ["Problem", "check_dataset", "check_episode_file"]


def check_dataset(root: Path, warnings: list[Problem] | None = None) -> list[Problem]:
    """Every problem found in the folder, sorted by file; what readers repair or accept with
    a caveat (clipped or dropped UI elements, JPEG screenshots) goes to ``warnings``."""
    root = Path(root)
    annotations = root / ANNOTATIONS
    if not annotations.is_dir():
        return [Problem(str(annotations), None, "a folder of <episode_id>.json files", "nothing")]
    screenshots = root / SCREENSHOTS
    problems: list[Problem] = []
    have_screens = screenshots.is_dir()
    if not have_screens:
        problems.append(Problem(str(screenshots), None, "a folder of screenshots", "nothing"))
    episode_ids = set()
    for path in sorted(annotations.glob("*.json")):
        episode_ids.add(path.stem)
        problems.extend(
            check_episode_file(path, screenshots, check_screenshots=have_screens, warnings=warnings)
        )
    splits = root / SPLITS
    if not splits.is_dir():
        # Without a split nothing can be built or replayed the way GUIOdyssey is evaluated.
        problems.append(
            Problem(str(splits), None, "a folder of <name>_split.json files", "nothing")
        )
    for path in sorted(splits.glob("*.json")):
        problems.extend(_check_split(path, episode_ids))
    return problems


def check_episode_file(
    path: Path,
    screenshots: Path,
    *,
    check_screenshots: bool = True,
    warnings: list[Problem] | None = None,
) -> list[Problem]:
    reader = FieldReader(path, collect=True)
    data = load_json(path, reader)
    parse_episode(data, reader, screenshots)
    if isinstance(data, Mapping):
        if isinstance(data.get("episode_id"), str) and data["episode_id"] != path.stem:
            reader.fail("episode_id", f"the file's name {path.stem!r}", data["episode_id"])
        steps = data.get("steps")
        if steps == []:
            reader.fail("steps", "at least one step", steps)
        if isinstance(steps, list):
            for position, step in enumerate(steps):
                if isinstance(step, Mapping):
                    _check_step_extras(step, f"steps[{position}]", reader)
                    if check_screenshots:
                        _check_screenshot(step, f"steps[{position}]", screenshots, reader)
            if check_screenshots:
                _check_jpegs(steps, screenshots, reader)
    if warnings is not None:
        warnings.extend(reader.warnings)
    return reader.problems


def _points(value: Any) -> Iterator[float]:
    """Every number in a nested list, for the range check."""
    if isinstance(value, list):
        for item in value:
            yield from _points(item)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield value


def _check_step_extras(step: Mapping[str, Any], here: str, reader: FieldReader) -> None:
    for key in ("info", "sam2_bbox"):
        value = step.get(key)
        if isinstance(value, list) and any(not 0 <= v <= NORM_MAX for v in _points(value)):
            reader.fail(f"{here}.{key}", "coordinates within 0..1000", value)


def _check_screenshot(
    step: Mapping[str, Any], here: str, screenshots: Path, reader: FieldReader
) -> None:
    name = step.get("screenshot")
    if name is None:
        if step.get("ui_elements"):
            reader.warn(f"{here}.screenshot", "a screenshot (none: the step is built from its "
                        "ui_elements)", "none")  # fmt: skip
        else:
            reader.fail(f"{here}.screenshot", "a screenshot, or ui_elements to build from", "none")
        return
    if not isinstance(name, str):
        return
    path = screenshots / name
    if not path.is_file():
        reader.fail(f"{here}.screenshot", f"the file {screenshots.name}/{name}, not found")
        return
    problem = image_problem(path)
    if problem:
        reader.fail(f"{here}.screenshot", f"a readable image {screenshots.name}/{name}", problem)


#: How a whole image file ends: a file cut short lacks it.
_IMAGE_ENDS = {"PNG": b"IEND\xaeB`\x82", "JPEG": b"\xff\xd9"}


def image_problem(path: Path) -> str | None:
    """What is wrong with an image file, or None. Only the header is parsed and the last bytes
    read, not the pixels: a GUIOdyssey download holds >100k screenshots of ~1 MB each."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            kind = image.format or ""
        with path.open("rb") as file:
            file.seek(max(0, path.stat().st_size - 16))
            tail = file.read()
    except (OSError, SyntaxError, ValueError, UnidentifiedImageError) as exc:
        return str(exc) or type(exc).__name__
    end = _IMAGE_ENDS.get(kind)
    if end is not None and not tail.rstrip(b"\x00").endswith(end):
        return f"a {kind} file cut short (no end marker)"
    return None


def _check_jpegs(steps: list[Any], screenshots: Path, reader: FieldReader) -> None:
    """One warning per episode with JPEG screenshots: lossy, and their EXIF size and
    orientation are ignored (the pixels are read as stored), which matters when they
    disagree with the pixels, as phone screenshots' metadata often does."""
    names = [
        s["screenshot"]
        for s in steps
        if isinstance(s, Mapping)
        and isinstance(s.get("screenshot"), str)
        and s["screenshot"].lower().endswith((".jpg", ".jpeg"))
        and (screenshots / s["screenshot"]).is_file()
    ]
    if not names:
        return
    note = _exif_note(screenshots / names[0])
    reader.warn(
        "steps[*].screenshot",
        f"PNG screenshots; {len(names)} are JPEG (lossy; read as stored, EXIF ignored{note})",
        names[0],
    )


def _exif_note(path: Path) -> str:
    """What a JPEG's EXIF claims that its pixels do not (size swapped, a rotation)."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow is a core dependency
        return ""
    try:
        with Image.open(path) as image:
            exif = image.getexif()
            size = image.size
            claimed = {**dict(exif), **dict(exif.get_ifd(0x8769))}
            width, height = claimed.get(0xA002), claimed.get(0xA003)
            orientation = exif.get(0x0112, 1)
    except (OSError, ValueError):
        return ""
    notes = []
    if width and height and (width, height) != size:
        notes.append(f"EXIF says {width}x{height}, pixels are {size[0]}x{size[1]}")
    if orientation not in (None, 1):
        notes.append(f"EXIF orientation {orientation} not applied")
    return "; " + "; ".join(notes) if notes else ""


def _check_split(path: Path, episode_ids: set[str]) -> list[Problem]:
    reader = FieldReader(path, collect=True)
    parts = read_split(path, reader)
    for part in SPLIT_PARTS:
        seen: set[str] = set()
        for position, episode_id in enumerate(parts[part]):
            field = f"{part}[{position}]"
            if episode_id not in episode_ids:
                reader.fail(field, f"an episode in {ANNOTATIONS}/", f"{episode_id}.json")
            if episode_id in seen:
                reader.fail(field, f"each episode once in {part}", episode_id)
            seen.add(episode_id)
    for episode_id in sorted(set(parts["train"]) & set(parts["test"])):
        reader.fail("test", "no episode in both train and test", episode_id)
    return reader.problems
