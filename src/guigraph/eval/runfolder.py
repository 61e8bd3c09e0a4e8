"""The run folder of ``guigraph eval``: what is written, when, and how a run resumes.

``RUN/manifest.json`` (how the run was made; never a secret), ``RUN/steps.jsonl`` (one line
per step, appended as the step completes), ``RUN/episodes.jsonl`` (one line per finished
episode, appended after its last step line) and ``RUN/summary.json`` (recomputed from the two
JSONL files at the end of every session). docs/run-folder.md describes every field.

An episode is *finished* when its line is in ``episodes.jsonl``; its step lines were written
before it. Opening an existing folder (resuming) keeps finished episodes as they are and
removes the step lines of every other episode (an interrupted one restarts clean), so a run
killed at any moment and resumed counts every episode exactly once.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guigraph.errors import ConfigError, DatasetError

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
STEPS = "steps.jsonl"
EPISODES = "episodes.jsonl"
SUMMARY = "summary.json"
SCREENS = "screens"

#: Manifest config keys that may change between sessions of one run (they do not change the
#: numbers): how many run at once, where, and how many episodes this session was limited to.
VOLATILE_CONFIG = frozenset({"concurrency", "executor", "ray_address", "limit", "resume"})
#: Model settings that may change between sessions: where the server is and how to call it.
VOLATILE_MODEL = frozenset(
    {"base_url", "max_concurrency", "timeout_s", "max_attempts", "backoff_initial_s",
     "backoff_max_s", "stream", "api_key_env"}
)  # fmt: skip


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def git_commit() -> str | None:
    """The commit of the guigraph checkout in use (None for an installed copy)."""
    root = Path(__file__).resolve().parents[3]
    if not (root / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


@dataclass
class RunFolder:
    """An opened run folder: finished episodes known, appends serialized by one lock."""

    path: Path
    manifest: dict[str, Any]
    finished: dict[str, dict[str, Any]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path, manifest: dict[str, Any], resume: bool = True) -> RunFolder:
        """Create the folder, or resume the run in it (``resume=False``: refuse to)."""
        path = Path(path)
        old = _read_json(path / MANIFEST) if (path / MANIFEST).exists() else None
        if old is None and path.exists() and any(path.iterdir()):
            raise ConfigError(f"{path} is not empty and holds no {MANIFEST}: not a run folder")
        if old is not None:
            if not resume:
                raise ConfigError(
                    f"{path} already holds a run; resume it (drop --no-resume) or use another --out"
                )
            _check_same_run(path, old, manifest)
            manifest = {**manifest, "started": old.get("started", manifest["started"])}
            manifest["sessions"] = [*old.get("sessions", []), manifest["sessions"][-1]]
        path.mkdir(parents=True, exist_ok=True)
        folder = cls(path, manifest)
        folder.finished = folder._load_finished()
        folder._drop_unfinished_steps()
        folder.write_manifest()
        return folder

    def write_manifest(self) -> None:
        _write_json_atomic(self.path / MANIFEST, self.manifest)

    def _load_finished(self) -> dict[str, dict[str, Any]]:
        rows = read_jsonl(self.path / EPISODES, repair=True)
        return {str(row["episode_id"]): row for row in rows}

    def _drop_unfinished_steps(self) -> None:
        steps = self.path / STEPS
        if not steps.exists():
            steps.touch()
            return
        rows = read_jsonl(steps, repair=True)
        kept = [r for r in rows if str(r.get("episode_id")) in self.finished]
        seen: set[tuple[str, int]] = set()
        unique = []
        for row in kept:  # a step of a finished episode is never counted twice
            key = (str(row["episode_id"]), int(row["step"]))
            if key not in seen:
                seen.add(key)
                unique.append(row)
        if len(unique) != len(rows):
            _write_lines_atomic(steps, unique)

    # -- appending -----------------------------------------------------------------------
    def append_steps(self, rows: Iterable[Mapping[str, Any]]) -> None:
        text = "".join(_line(r) for r in rows)
        if text:
            with self._lock, (self.path / STEPS).open("a", encoding="utf-8") as out:
                out.write(text)

    def append_episode(self, row: Mapping[str, Any]) -> None:
        """The episode line, after its steps (the step lines reach the disk first)."""
        with self._lock:
            with (self.path / EPISODES).open("a", encoding="utf-8") as out:
                out.write(_line(row))
                out.flush()
                os.fsync(out.fileno())
            self.finished[str(row["episode_id"])] = dict(row)

    def end_session(self, summary: Mapping[str, Any]) -> None:
        self.manifest["ended"] = now()
        self.manifest["sessions"][-1]["ended"] = self.manifest["ended"]
        self.write_manifest()
        _write_json_atomic(self.path / SUMMARY, dict(summary))

    def screens_dir(self) -> Path:
        folder = self.path / SCREENS
        folder.mkdir(exist_ok=True)
        return folder


@dataclass(frozen=True)
class RunData:
    """A run folder as read by reports and viewers."""

    path: Path
    manifest: dict[str, Any]
    steps: list[dict[str, Any]]  # in the order written
    episodes: list[dict[str, Any]]
    summary: dict[str, Any] | None  # None while the first session is still running


def read_run(path: Path, settled: bool = True) -> RunData:
    """Read a run folder without changing it. ``settled``: only the step lines of finished
    episodes (a run in progress, or killed, also holds lines of unfinished ones)."""
    path = Path(path)
    if not (path / MANIFEST).is_file():
        raise DatasetError(path / MANIFEST, None, "the manifest of a guigraph eval run folder")
    manifest = _read_json(path / MANIFEST)
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise DatasetError(path / MANIFEST, "schema_version", str(SCHEMA_VERSION),
                           manifest.get("schema_version"))  # fmt: skip
    episodes = read_jsonl(path / EPISODES)
    steps = read_jsonl(path / STEPS)
    if settled:
        done = {str(e["episode_id"]) for e in episodes}
        steps = [s for s in steps if str(s.get("episode_id")) in done]
    summary = _read_json(path / SUMMARY) if (path / SUMMARY).is_file() else None
    return RunData(path, manifest, steps, episodes, summary)


def _check_same_run(path: Path, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    """A resumed run must be the same evaluation: same suite, config, KB and model."""
    if old.get("schema_version") != SCHEMA_VERSION:
        raise ConfigError(
            f"{path / MANIFEST}: schema_version {old.get('schema_version')!r}, expected "
            f"{SCHEMA_VERSION}; use another --out"
        )
    differences = []
    for key in ("suite", "kb_id", "seeds"):
        if old.get(key) != new.get(key):
            differences.append(f"{key} {old.get(key)!r} -> {new.get(key)!r}")
    for section, volatile in (("config", VOLATILE_CONFIG), ("model", VOLATILE_MODEL)):
        before, after = old.get(section) or {}, new.get(section) or {}
        if bool(old.get(section)) != bool(new.get(section)):
            differences.append(f"{section} {'none' if not before else 'set'} -> "
                               f"{'none' if not after else 'set'}")  # fmt: skip
            continue
        for key in sorted(set(before) | set(after)):
            if key not in volatile and before.get(key) != after.get(key):
                differences.append(f"{section}.{key} {before.get(key)!r} -> {after.get(key)!r}")
    if differences:
        raise ConfigError(
            f"{path} holds a run made with other settings ({'; '.join(differences[:4])}); "
            "resuming would mix two evaluations: use another --out"
        )


# -- files ------------------------------------------------------------------------------
def _line(row: Mapping[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False) + "\n"


def read_jsonl(path: Path, repair: bool = False) -> list[dict[str, Any]]:
    """The objects of a JSONL file. A torn *last* line (a killed write) is dropped, and with
    ``repair`` cut from the file; a bad line elsewhere is an error naming file and line."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    rows: list[dict[str, Any]] = []
    torn = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines) or (number == len(lines) - 1 and not lines[-1]):
                torn = True
                break
            raise DatasetError(f"{path}:{number}", None, "a JSON object", exc.msg) from None
        if not isinstance(value, dict):
            raise DatasetError(f"{path}:{number}", None, "a JSON object", type(value).__name__)
        rows.append(value)
    if torn and repair:
        _write_lines_atomic(path, rows)
    return rows


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(path, None, "a JSON object", exc.msg) from None
    if not isinstance(value, dict):
        raise DatasetError(path, None, "a JSON object", type(value).__name__)
    return value


def _write_json_atomic(path: Path, value: Any) -> None:
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(json.dumps(value, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temp, path)


def _write_lines_atomic(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    temp = path.with_name(path.name + ".tmp")
    temp.write_text("".join(_line(r) for r in rows), encoding="utf-8")
    os.replace(temp, path)
