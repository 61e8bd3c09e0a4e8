"""One envelope for every benchmark's figures: ``bench/results/<name>.json``.

    import benchrun                                  # bench/ scripts run as `python bench/x.py`

    run = benchrun.start("loop")                     # clocks started, load read
    ...                                              # the measurement
    run.figure("overhead_ms", 9.7)                   # a named value (README headlines use these)
    run.table("Per step", ["what", "median ms"], [["overhead", 9.7], ["plan", 24.1]])
    run.note("9 of 10 episodes succeeded")           # a short fact, no history
    run.save()                                       # bench/results/loop.json

The file records, beside the figures, what a reader needs to trust them: the exact command
line, the date, the commit measured (and whether the tree had uncommitted changes), the
process's niceness, the machine's load average at the start and the end, and the wall and
CPU time of the whole run (this process and the children it waited for). ``bench/render.py``
turns the folder into BENCHMARKS.md. ``GUIGRAPH_BENCH_RESULTS=DIR`` writes elsewhere (tests,
trial runs that must not replace a committed figure).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"
NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
# What a figure depends on: a change elsewhere (docs, results) does not make a tree "dirty".
CODE_PATHS = ("src", "bench", "tests", "pyproject.toml", "Makefile", ":(exclude)bench/results")

Cell = str | int | float | bool | None


def results_dir() -> Path:
    override = os.environ.get("GUIGRAPH_BENCH_RESULTS")
    return Path(override) if override else RESULTS


def command_line(argv: list[str] | None = None) -> str:
    """The command as typed from the repository root: ``.venv/bin/python bench/x.py --a 1``."""
    args = list(sys.argv if argv is None else argv)
    script = Path(args[0]).resolve() if args else None
    if script is not None and script.is_file() and script.is_relative_to(ROOT):
        args[0] = str(script.relative_to(ROOT))
    python = Path(sys.executable)
    shown = (
        str(python.relative_to(ROOT)) if python.is_relative_to(ROOT) else "python"
    )  # .venv/bin/python when run from the project's venv
    return shlex.join([shown, *args])


def git_commit(root: Path = ROOT) -> tuple[str, bool]:
    """The short commit checked out, and whether code (not results or docs) differs from it."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",
             *CODE_PATHS],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False
    return commit, bool(status)


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _cell(value: Any) -> Cell:
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return round(value, 6)
    raise TypeError(f"a table cell must be text or a number, not {type(value).__name__}")


class BenchRun:
    """One benchmark run: started by :func:`start`, written by :meth:`save`."""

    def __init__(self, name: str, argv: list[str] | None = None) -> None:
        if not NAME.match(name):
            raise ValueError(f"result name {name!r}: lower-case letters, digits, '-', '_', '.'")
        self.name = name
        self.command = command_line(argv)
        self.argv = list(sys.argv if argv is None else argv)
        self.started = dt.datetime.now(dt.UTC)
        self.commit, self.dirty = git_commit()
        self.load_start = _load()
        self._wall = time.perf_counter()
        self._cpu = _cpu_seconds()
        self.figures: dict[str, Cell] = {}
        self.tables: list[dict[str, Any]] = []
        self.notes: list[str] = []

    def figure(self, key: str, value: Any) -> None:
        """A named value: what a headline or another tool reads back (``figures.key``)."""
        self.figures[key] = _cell(value)

    def table(self, title: str, columns: list[str], rows: list[list[Any]]) -> None:
        for i, row in enumerate(rows):
            if len(row) != len(columns):
                raise ValueError(
                    f"table {title!r} row {i}: {len(row)} cells, {len(columns)} columns"
                )
        self.tables.append(
            {
                "title": title,
                "columns": list(columns),
                "rows": [[_cell(c) for c in r] for r in rows],
            }
        )

    def note(self, text: str) -> None:
        self.notes.append(text)

    def envelope(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "command": self.command,
            "argv": self.argv,
            "date": self.started.isoformat(timespec="seconds"),
            "commit": self.commit,
            "dirty": self.dirty,
            "nice": os.nice(0),
            "cpus": os.cpu_count() or 0,
            "load_start": self.load_start,
            "load_end": _load(),
            "wall_s": round(time.perf_counter() - self._wall, 3),
            "cpu_s": round(_cpu_seconds() - self._cpu, 3),
            "figures": self.figures,
            "tables": self.tables,
            "notes": self.notes,
        }

    def save(self) -> Path:
        """Write ``<results>/<name>.json`` (atomically: a killed run leaves the old figure)."""
        folder = results_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}.json"
        partial = path.with_suffix(".json.partial")
        partial.write_text(json.dumps(self.envelope(), indent=1, ensure_ascii=False) + "\n")
        partial.replace(path)
        print(f"result: {path}", file=sys.stderr)
        return path


def start(name: str, argv: list[str] | None = None) -> BenchRun:
    """Start measuring the figure ``name`` (the results file's stem) now."""
    return BenchRun(name, argv)
