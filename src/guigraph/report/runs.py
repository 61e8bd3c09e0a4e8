"""Reading a run folder, as ``guigraph eval odyssey|sim`` writes it.

A run folder holds ``manifest.json`` (what ran: suite, config, model, KB, version, times),
``steps.jsonl`` (one line per step as it completed), ``episodes.jsonl`` (one line per finished
episode) and ``summary.json``. Readers here are lenient about everything beyond the scoring
fields, so a run that is still going, was killed, or was written by an older version still
reads; a line that cannot be read is an error naming the file, the line and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guigraph.errors import DatasetError

MANIFEST, STEPS, EPISODES, SUMMARY = (
    "manifest.json",
    "steps.jsonl",
    "episodes.jsonl",
    "summary.json",
)


@dataclass(frozen=True)
class Run:
    """One run folder, read whole: its name is the folder's name."""

    path: Path
    manifest: dict[str, Any]
    steps: list[dict[str, Any]]
    episodes: list[dict[str, Any]]
    summary: dict[str, Any]
    name: str = ""
    step_lines: list[int] = field(default_factory=list, repr=False)  # file line of each step
    _by_episode: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, path: str | Path) -> Run:
        folder = Path(path)
        if not folder.is_dir():
            raise DatasetError(folder, None, "a run folder (manifest.json, steps.jsonl, ...)")
        if not (folder / STEPS).is_file() and not (folder / EPISODES).is_file():
            raise DatasetError(folder, None, f"a run folder with {STEPS} or {EPISODES}")
        lines: list[int] = []
        steps = read_jsonl(folder / STEPS, _check_step, lines)
        by_episode: dict[str, list[dict[str, Any]]] = {}
        for step in steps:
            by_episode.setdefault(step["episode_id"], []).append(step)
        for rows in by_episode.values():
            rows.sort(key=lambda s: s["step"])
        return cls(
            path=folder,
            manifest=read_object(folder / MANIFEST),
            steps=steps,
            episodes=read_jsonl(folder / EPISODES, _check_episode),
            summary=read_object(folder / SUMMARY),
            name=folder.resolve().name,
            step_lines=lines,
            _by_episode=by_episode,
        )

    @property
    def suite(self) -> str:
        return str(self.manifest.get("suite") or "")

    @property
    def config(self) -> dict[str, Any]:
        config = self.manifest.get("config")
        return config if isinstance(config, dict) else {}

    def episode_ids(self) -> list[str]:
        """Every episode seen, in the order of episodes.jsonl, then of steps.jsonl."""
        seen = dict.fromkeys(e["episode_id"] for e in self.episodes)
        seen.update(dict.fromkeys(self._by_episode))
        return list(seen)

    def episode(self, episode_id: str) -> dict[str, Any]:
        """The episodes.jsonl line of an episode, or one made up from its steps."""
        for row in self.episodes:
            if row["episode_id"] == episode_id:
                return row
        steps = self._by_episode.get(episode_id, [])
        head = steps[0] if steps else {}
        return {
            "episode_id": episode_id,
            "category": head.get("category", ""),
            "instruction": head.get("instruction", ""),
            "steps": len(steps),
            "unfinished": True,  # no line in episodes.jsonl: running, or cut off by a kill
        }

    def steps_of(self, episode_id: str) -> list[dict[str, Any]]:
        return list(self._by_episode.get(episode_id, []))


def read_object(path: Path) -> dict[str, Any]:
    """A JSON object file, or {} when it is not there (a run still going has no summary)."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(path, None, "a JSON object", str(exc)) from None
    if not isinstance(data, dict):
        raise DatasetError(path, None, "a JSON object", type(data).__name__)
    return data


def read_jsonl(path: Path, check: Any, lines_out: list[int] | None = None) -> list[dict[str, Any]]:
    """Each line of a JSONL file, checked; a missing file is empty. A half-written last line
    (a run killed mid-write) is skipped, as a resumed run would rewrite it."""
    if not path.is_file():
        return []
    rows: list[dict[str, Any]] = []
    try:
        # Only "\n" ends a line: text in a row may hold U+2028, U+0085, ... (splitlines would cut).
        lines = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise DatasetError(path, None, "UTF-8 text", str(exc)) from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break  # torn final line of a killed run
            raise DatasetError(where, None, "a JSON object", exc.msg) from None
        if not isinstance(data, dict):
            raise DatasetError(where, None, "a JSON object", type(data).__name__)
        check(data, where)
        rows.append(data)
        if lines_out is not None:
            lines_out.append(number)
    return rows


def _check_step(data: dict[str, Any], where: str) -> None:
    _require(data, where, "episode_id", str, "a string")
    _require(data, where, "category", str, "a string")
    for name in ("step", "step_length"):
        value = data.get(name)
        if name == "step_length" and value is None:
            continue  # live runs: the length is known only when the episode ends
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise DatasetError(where, name, "an integer >= 0", value if name in data else "nothing")
    for name in ("gt", "pred"):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise DatasetError(where, name, "a command string or null", data[name])
    if data.get("correct") is not None and not isinstance(data["correct"], bool):
        raise DatasetError(where, "correct", "true, false or null", data["correct"])


def _check_episode(data: dict[str, Any], where: str) -> None:
    _require(data, where, "episode_id", str, "a string")
    if data.get("success") is not None and not isinstance(data["success"], bool):
        raise DatasetError(where, "success", "true, false or null", data["success"])


def _require(data: dict[str, Any], where: str, name: str, kind: type, expected: str) -> None:
    if not isinstance(data.get(name), kind):
        raise DatasetError(where, name, expected, data.get(name, "nothing"))


def load_runs(paths: list[Path]) -> list[Run]:
    """Several runs for a side-by-side report; names made unique (``a``, ``a (2)``)."""
    runs: list[Run] = []
    names: dict[str, int] = {}
    for path in paths:
        run = Run.load(path)
        count = names[run.name] = names.get(run.name, 0) + 1
        if count > 1:
            run = Run(**{**run.__dict__, "name": f"{run.name} ({count})"})
        runs.append(run)
    return runs
