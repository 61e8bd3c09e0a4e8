"""The generalization benchmark's figures: `guigraph eval generalize` as a result file.

    .venv/bin/python bench/generalize.py --frozen                    # generalize-frozen-hashing
    .venv/bin/python bench/generalize.py --frozen --encoder minilm   # extra embed (PyTorch)
    .venv/bin/python bench/generalize.py                             # generalize-dev-hashing

Runs the command a user runs (``guigraph eval generalize --json``) in a fresh folder per half
and encoder (``runs/bench-<name>``; a folder given by ``--out`` is resumed): the demo's logs
are recorded and the KB built there with the encoder, then both memories run on the half's
items. The frozen half is
run once, for the reported figure, never to guide work; its failed cases are counted, never
listed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import benchrun

KINDS = {
    "reworded": "reworded seen tasks",
    "recorded": "same tasks, recorded wording",
    "pairing": "new pairings",
}
MEMORIES = {"graph": "workflow graph", "trace": "trace baseline"}


def rate(entry: dict[str, Any]) -> str:
    if not entry.get("episodes"):
        return "–"
    return f"{entry['sr']:.3f} ({entry['successes']}/{entry['episodes']})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frozen", action="store_true", help="the frozen half (once)")
    parser.add_argument("--encoder", default="hashing", help="hashing, minilm, model2vec, st:M")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    half = "frozen" if args.frozen else "dev"
    name = f"generalize-{half}-{args.encoder.replace(':', '-').replace('/', '-').lower()}"
    out = args.out or Path("runs") / f"bench-{name}"
    if args.out is None and out.exists():
        shutil.rmtree(out)  # the bench's own folder starts fresh: the figure is the whole job's
    encoder = "hashing:256" if args.encoder == "hashing" else args.encoder
    command = [str(Path(sys.executable).parent / "guigraph"), "eval", "generalize"]
    command += ["--out", str(out), "--json", "--encoder", encoder]
    command += ["--frozen"] if args.frozen else []
    bench = benchrun.start(name)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        print(
            f"bench/generalize.py: `{' '.join(command)}` exited {done.returncode}", file=sys.stderr
        )
        return 1
    report = json.loads(done.stdout)
    setup = report["setup"]
    worlds = setup["worlds_per_wording"]
    bench.table(
        f"Success rate, {half} half, encoder {setup['encoder']} (SimPhone's checker; "
        f"{worlds['reworded']} worlds per wording, {worlds['pairing']} per pairing)",
        ["memory", *KINDS.values()],
        [[MEMORIES[m], *(rate(report[k][m]) for k in KINDS)] for m in MEMORIES],
    )
    for kind in KINDS:
        for memory in MEMORIES:
            bench.figure(f"{kind}.{memory}.sr", round(report[kind][memory]["sr"], 3))
    bench.figure("failures_graph", report["failures_count"])
    bench.figure("run_seconds", setup["seconds"])
    kb = setup.get("kb", {})
    if kb:
        bench.table("The knowledge base (the demo's logs)", list(kb), [list(kb.values())])
    if args.frozen:
        bench.note("Frozen half: failed cases are counted, not listed.")
    bench.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
