"""Benchmark: how long each golden corpus takes to pass, as `make test` and CI run it.

    .venv/bin/python bench/corpus_time.py              # every corpus, 3 fresh processes each
    .venv/bin/python bench/corpus_time.py --runs 5

The golden corpus is the model-free planner's specification (docs/golden-corpus.md), so it must
stay quick to run: the SimPhone corpus's target is to pass in under 10 s. Each corpus's test module
runs in a fresh `pytest` process, one after another, ``--runs`` times: pytest's own figure
(collection, the KB's load, every case planned and judged) and the whole process's wall and
CPU seconds (the interpreter and the imports too; CPU of the child, from the kernel's
accounting). Medians of the runs; a run that fails is a failed figure, not a slow one.
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import benchrun

ROOT = Path(__file__).resolve().parents[1]
#: (corpus, its test module): the SimPhone corpus is the one the 10 s target is for.
CORPORA = (
    ("SimPhone (and the slot cases)", "tests/golden/test_corpus.py"),
    ("DokuWiki", "tests/golden/test_dokuwiki_corpus.py"),
    ("desktop", "tests/golden/test_desktop_corpus.py"),
    ("MiniWoB++", "tests/golden/test_miniwob_corpus.py"),
)
TARGET_S = 10.0
_PASSED = re.compile(r"(\d+) passed(?:, [^\n]*?)? in ([\d.]+)s")


@dataclass(frozen=True)
class Run:
    pytest_s: float
    wall_s: float
    cpu_s: float
    passed: int


def run_once(module: str) -> Run:
    """One fresh pytest process on ``module``; an error if any of its tests fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", module],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = _PASSED.search(done.stdout)
    if done.returncode != 0 or summary is None:
        tail = "\n".join(done.stdout.splitlines()[-15:])
        raise SystemExit(f"error: {module} did not pass (exit {done.returncode}):\n{tail}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(float(summary.group(2)), wall, cpu, int(summary.group(1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per corpus")
    args = parser.parse_args()
    if args.runs < 1:
        raise SystemExit("error: --runs: expected at least 1")
    run = benchrun.start("corpus-time")
    rows: list[list[object]] = []
    seconds: list[float] = []  # pytest's, per corpus
    for label, module in CORPORA:
        runs = [run_once(module) for _ in range(args.runs)]
        pytest_s = statistics.median(r.pytest_s for r in runs)
        wall = statistics.median(r.wall_s for r in runs)
        cpu = statistics.median(r.cpu_s for r in runs)
        print(f"{label}: pytest {pytest_s:.2f} s, process {wall:.2f} s wall / {cpu:.2f} s CPU")
        key = module.rsplit("/", 1)[1].removesuffix(".py").removeprefix("test_")
        run.figure(f"{key}.pytest_s", round(pytest_s, 2))
        run.figure(f"{key}.process_wall_s", round(wall, 2))
        rows.append([label, runs[0].passed, round(pytest_s, 2), round(wall, 2), round(cpu, 2)])
        seconds.append(pytest_s)
    columns = ["corpus", "tests", "pytest s", "process wall s", "process CPU s"]
    run.table(f"Each corpus's tests in a fresh process (median of {args.runs})", columns, rows)
    run.note(
        f"SimPhone corpus {seconds[0]:.2f} s in pytest (target: under {TARGET_S:.0f} s); "
        f"all four {sum(seconds):.1f} s"
    )
    run.save()


if __name__ == "__main__":
    main()
