"""``guigraph import miniwob`` speed: demonstrations record.js wrote, imported per second.

The demonstrations are the ones record.js wrote in Chromium for the tests
(``tests/envs/web/data/recordjs``: a hesitant login with a corrected typo, a radio button),
copied ``--demos`` times with one timestamp changed so that each is a distinct file and
episode, gzipped as people's demonstration sets are. The clock covers the whole import into a
fresh logs folder (reading, events to gestures, element trees, writing annotations and the
split). Target: >= 200 demonstrations/s.

    .venv/bin/python bench/import_miniwob.py [--demos 1000]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

import benchrun
from guigraph.envs.web.demos import import_demos

KEPT = Path(__file__).resolve().parents[1] / "tests" / "envs" / "web" / "data" / "recordjs"
TARGET = 200.0


def make_copies(folder: Path, count: int) -> int:
    """``count`` distinct demonstrations from the kept ones; their total number of states."""
    sources = [json.loads(gzip.decompress(p.read_bytes())) for p in sorted(KEPT.glob("*.gz"))]
    states = 0
    for n in range(count):
        demo = json.loads(json.dumps(sources[n % len(sources)]))
        demo["states"][0]["time"] = n
        states += len(demo["states"])
        (folder / f"{demo['taskName']}_{n:05d}.json.gz").write_bytes(
            gzip.compress(json.dumps(demo).encode("utf-8"))
        )
    return states


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demos", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="import-miniwob-") as scratch:
        demos, logs = Path(scratch) / "demos", Path(scratch) / "logs"
        demos.mkdir()
        states = make_copies(demos, args.demos)
        import_demos([], logs)  # warm: the package's task list, imports
        bench = benchrun.start("import-miniwob")
        started, cpu_started = time.perf_counter(), time.process_time()
        summary = import_demos([demos], logs)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    done = len(summary.imported)
    per_s, per_cpu_s = done / wall, done / cpu
    print(
        f"{done} demonstrations ({states} record.js states, {summary.steps} steps) in "
        f"{wall:.2f} s wall, {cpu:.2f} s CPU: {per_s:.0f}/s wall, {per_cpu_s:.0f}/s per CPU "
        f"second (target {TARGET:.0f}/s); bad files {len(summary.bad_files)}"
    )
    bench.figure("demos_per_s", round(per_s, 1))
    bench.figure("demos_per_cpu_s", round(per_cpu_s, 1))
    bench.table(
        f"{done} record.js demonstrations ({states} states) imported into a fresh logs folder",
        ["demonstrations", "steps", "wall", "CPU", "per second (wall)", "per CPU second",
         "target"],
        [[done, summary.steps, f"{wall:.2f} s", f"{cpu:.2f} s", round(per_s), round(per_cpu_s),
          f">= {TARGET:.0f}/s"]],
    )  # fmt: skip
    bench.save()
    return 0 if done == args.demos and not summary.bad_files else 1


if __name__ == "__main__":
    sys.exit(main())
