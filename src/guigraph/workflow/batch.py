"""Running a workflow once or once per row of a CSV file, into a run folder that survives a
crash.

A run folder holds ``workflow-run.json`` (what was run: the file, healing, rows), one line per
row in ``rows.jsonl`` (``started`` before the row acts, then its result), ``results.csv`` (row,
success, steps, healed steps, seconds) and ``summary.json``. Running again into the same
folder resumes: finished rows are kept, and a row that had started when the run was killed is
recorded as interrupted and never run a second time (it may have acted: an order placed
twice is worse than a row to redo by hand).
"""

from __future__ import annotations

import csv
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from guigraph.errors import ConfigError, DatasetError
from guigraph.workflow.schema import Workflow
from guigraph.workflow.values import type_problem

RUN_FILE = "workflow-run.json"
ROWS_FILE = "rows.jsonl"
SCHEMA_VERSION = 1


def resolve_values(
    workflow: Workflow, given: Mapping[str, str], where: str = "--param"
) -> dict[str, str]:
    """The parameter values of one run: given ones, else defaults; every problem (an unknown
    name, a value of the wrong type, a required one missing) is a ``ConfigError``."""
    known = {p.name: p for p in workflow.parameters}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ConfigError(
            f"{where}: unknown parameter {', '.join(unknown)} (the workflow's: "
            f"{', '.join(known) or 'none'})"
        )
    values: dict[str, str] = {}
    for name, parameter in known.items():
        value = given.get(name, parameter.default)
        if value is None:
            raise ConfigError(f"{where}: parameter {name!r} is required (no default)")
        problem = type_problem(parameter, value)
        if problem is not None:
            raise ConfigError(f"{where}: parameter {name!r} expects {problem}, got {value!r}")
        values[name] = value
    return values


def read_rows(path: Path, workflow: Workflow) -> list[dict[str, str]]:
    """The rows of a CSV file (a header of parameter names), each checked before anything
    runs: a missing column of a required parameter or a bad value names the file, the row
    and the column."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = [c.strip() for c in reader.fieldnames or []]
            rows = [{k.strip(): (v or "").strip() for k, v in row.items() if k} for row in reader]
    except OSError as exc:
        raise DatasetError(path, None, "a readable CSV file", exc.strerror) from None
    required = [p.name for p in workflow.parameters if p.required and p.default is None]
    missing = [name for name in required if name not in columns]
    if missing:
        raise DatasetError(
            path, "header", f"a column for each required parameter (missing: {', '.join(missing)})",
            ", ".join(columns) or "no header",
        )  # fmt: skip
    names = {p.name for p in workflow.parameters}
    extra = [c for c in columns if c not in names]
    if extra:
        raise DatasetError(
            path, "header", f"parameter names only ({', '.join(sorted(names)) or 'none'})",
            ", ".join(extra),
        )  # fmt: skip
    checked = []
    for n, row in enumerate(rows, 1):
        given = {k: v for k, v in row.items() if v != ""}
        try:
            checked.append(resolve_values(workflow, given, f"{path}: row {n}"))
        except ConfigError as exc:
            raise DatasetError(
                path, f"row {n}", "values of the parameters' types", str(exc)
            ) from None
    if not checked:
        raise DatasetError(path, None, "at least one row under the header", "none")
    return checked


@dataclass
class RowResult:
    """What one row's run did (a line of ``rows.jsonl``)."""

    row: int
    values: dict[str, str]
    ok: bool
    success: bool | None  # the world's checker, when it judged the run
    steps: int
    healed: int
    seconds: float
    failure: str = ""
    healings: list[dict[str, Any]] = field(default_factory=list)
    model_calls: int = 0
    runner_seconds: float = 0.0
    world_seconds: float = 0.0
    runner_cpu_seconds: float = 0.0
    actions: int = 0
    interrupted: bool = False
    #: Steps whose otherwise way the row took (its value was not listed): not healings.
    alternatives: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"event": "done", **asdict(self)}


RunRow = Callable[[int, dict[str, str]], RowResult]


class RunFolder:
    """The run folder: rows finished and started, appended and flushed one line at a time."""

    def __init__(self, path: Path, manifest: dict[str, Any]) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.mkdir(parents=True, exist_ok=True)
        run_file = path / RUN_FILE
        if run_file.is_file():
            old = json.loads(run_file.read_text())
            if (
                old.get("workflow_name") != manifest["workflow_name"]
                or old.get("rows") != manifest["rows"]
            ):
                raise ConfigError(
                    f"{path}: this run folder holds a run of {old.get('workflow_name')!r} over "
                    f"{old.get('rows')} rows; give another --out"
                )
        else:
            run_file.write_text(
                json.dumps({"schema_version": SCHEMA_VERSION, **manifest}, indent=1) + "\n"
            )
        self.done: dict[int, RowResult] = {}
        self.started: set[int] = set()
        for line in self._lines():
            if line.get("event") == "started":
                self.started.add(int(line["row"]))
            elif line.get("event") == "done":
                data = {k: v for k, v in line.items() if k != "event"}
                self.done[int(line["row"])] = RowResult(**data)

    def _lines(self) -> Iterator[dict[str, Any]]:
        rows = self.path / ROWS_FILE
        if not rows.is_file():
            return
        for text in rows.read_text(encoding="utf-8").splitlines():
            try:
                yield json.loads(text)
            except json.JSONDecodeError:
                continue  # a line cut by the crash: its row counts as started, not done

    def append(self, data: dict[str, Any]) -> None:
        with self._lock, (self.path / ROWS_FILE).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(data, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())


def run_rows(
    rows: Sequence[dict[str, str]], run_row: RunRow, folder: RunFolder | None,
    concurrency: int = 1, on_row: Callable[[RowResult], None] | None = None,
) -> list[RowResult]:  # fmt: skip
    """Run each row not finished yet (in order, ``concurrency`` at a time); rows a crash cut
    short are recorded as interrupted."""
    results: dict[int, RowResult] = dict(folder.done) if folder else {}
    todo: list[int] = []
    for n, values in enumerate(rows, 1):
        if n in results:
            continue
        if folder is not None and n in folder.started:
            result = RowResult(
                n, values, False, None, 0, 0, 0.0, interrupted=True,
                failure="interrupted: the run was killed while this row acted (not run again)",
            )  # fmt: skip
            folder.append(result.to_dict())
            results[n] = result
            continue
        todo.append(n)

    def one(n: int) -> RowResult:
        if folder is not None:
            folder.append({"event": "started", "row": n})
        result = run_row(n, rows[n - 1])
        if folder is not None:
            folder.append(result.to_dict())
        if on_row is not None:
            on_row(result)
        return result

    if concurrency <= 1:
        for n in todo:
            results[n] = one(n)
    else:
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            for result in pool.map(one, todo):
                results[result.row] = result
    return [results[n] for n in sorted(results)]


RESULT_COLUMNS = ("row", "success", "steps", "healed steps", "seconds")


def result_cells(result: RowResult) -> list[Any]:
    return [result.row, result.ok, result.steps, result.healed, round(result.seconds, 2)]


def write_results(path: Path, results: Sequence[RowResult]) -> None:
    with (path / "results.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(RESULT_COLUMNS)
        writer.writerows(result_cells(r) for r in results)


def summarize(results: Sequence[RowResult], workflow: Workflow, heal: str) -> dict[str, Any]:
    """The run's summary: rows, successes, every healed step with its reason, model calls."""
    steps = sum(r.steps for r in results)
    runner = sum(r.runner_seconds for r in results)
    return {
        "workflow": workflow.name,
        "heal": heal,
        "rows": len(results),
        "successes": sum(r.ok for r in results),
        "interrupted": sum(r.interrupted for r in results),
        "healed_steps": [
            {"row": r.row, **h} for r in results for h in r.healings if h.get("healed")
        ],
        "unhealed": [
            {"row": r.row, **h} for r in results for h in r.healings if not h.get("healed")
        ],
        "alternatives": [{"row": r.row, **a} for r in results for a in r.alternatives],
        "failures": [{"row": r.row, "failure": r.failure} for r in results if r.failure],
        "model_calls": sum(r.model_calls for r in results),
        "steps": steps,
        "runner_ms_per_action": round(1000 * runner / max(1, sum(r.actions for r in results)), 3),
        "runner_cpu_ms_per_action": round(
            1000
            * sum(r.runner_cpu_seconds for r in results)
            / max(1, sum(r.actions for r in results)),
            3,
        ),
        "seconds": round(sum(r.seconds for r in results), 3),
    }


def timed() -> Callable[[], float]:
    started = time.perf_counter()
    return lambda: time.perf_counter() - started
