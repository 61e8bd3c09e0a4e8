"""The generalization benchmark's development half on one KB per sentence encoder.

    .venv/bin/python bench/generalize_encoders.py --out /tmp/gen [--episodes 300] [--seed 11]
        [--encoder st:MODEL ...]

From one set of demo logs (``--out`` may be a ``guigraph demo`` folder; else they are
recorded there as the demo records them), builds one KB per encoder (``hashing:256``, the KB
default; ``minilm``, all-MiniLM-L6-v2, extra ``embed``; ``model2vec``, a static model
distilled from it on first use and cached under ``$XDG_CACHE_HOME/guigraph/model2vec``; any
``--encoder`` given) and runs the benchmark's development half on each, both memories, exactly as
``guigraph eval generalize`` does (its ``plan`` and ``run_cases``). The encoder decides which
recorded traces retrieval offers the planner; slot binding is word-based either way.

Prints one JSON line per encoder, a table of SR per kind and memory with build and run times
and the retrieval hit rate (the task's template among the first 1 / 4 traces retrieved, from
the logs' truth files), and the cases whose outcome differs from the first encoder's.

Cheap to re-run: each encoder's KB and results are kept under ``<out>/encoders/<encoder>/``
and reused while the guigraph code is the same (results resume like the benchmark's); the
times shown are those of the build and of the episodes as they ran, not of the re-run.

The frozen half is not run here: it is run once, by ``guigraph eval generalize --frozen``, for
the reported figure; an encoder comparison is development work.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import benchrun
from guigraph.envs.simphone.generalize import Half, packaged
from guigraph.errors import GuigraphError
from guigraph.eval.demo import DEMO_LOCK, DemoConfig, Reporter, code_fingerprint, prepare_kb
from guigraph.eval.generalize import KINDS, GeneralizeConfig, plan, run_cases, summarize
from guigraph.eval.suite import MEMORIES
from guigraph.locks import folder_lock

DEFAULT_ENCODERS = ("hashing:256", "minilm", "model2vec")
BUILD_RECORD = "build.json"


class PrintReporter:
    """Stage names and notes on stderr (the table goes to stdout)."""

    def stage(self, description: str, total: int, done: int = 0) -> Callable[[], None]:
        print(f"  {description}: {total} ({done} done before)", file=sys.stderr, flush=True)
        return lambda: None

    def note(self, text: str) -> None:
        print(f"  {text}", file=sys.stderr, flush=True)


def encoder_folder(out: Path, spec: str) -> Path:
    return out / "encoders" / spec.replace(":", "-").replace("/", "_")


def ensure_kb(folder: Path, spec: str, logs: Path, code: str) -> dict[str, Any]:
    """Build the KB of ``spec`` from ``logs`` into ``folder/kb`` unless this code built it
    already; returns its build record (seconds, size). Results made with other code go too."""
    from guigraph.graph.from_logs import build_from_logs

    record_path = folder / BUILD_RECORD
    if record_path.is_file():
        record: dict[str, Any] = json.loads(record_path.read_text())
        if record.get("code") == code and record.get("encoder") == spec:
            return record
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    started = time.perf_counter()
    summary, stats = build_from_logs(logs, folder / "kb", encoder=spec)
    # The build encodes only screens without a UI tree (none in SimPhone): the encoder's own
    # cost is mostly at the first retrieval (model load, every recorded instruction encoded).
    record = {
        "encoder": spec,
        "code": code,
        "build_s": round(time.perf_counter() - started, 1),
        "kb": {k: stats[k] for k in ("nodes", "edges", "traces") if k in stats},
        "skipped": len(summary.skipped),
    }
    record_path.write_text(json.dumps(record, indent=1) + "\n")
    return record


def check_available(spec: str) -> str | None:
    """Why ``spec`` cannot encode here (a missing extra, a bad spec), or None."""
    from guigraph.embed.base import encoder_from_spec

    try:
        encoder_from_spec(spec).encode(["a probe sentence"])
    except (GuigraphError, OSError, ValueError) as exc:  # an st: model not found is an OSError
        return f"{type(exc).__name__}: {exc}"
    return None


def measure(
    out: Path, config: GeneralizeConfig, specs: list[str], skipped: dict[str, str]
) -> list[dict[str, Any]]:
    """One row per encoder that can run; the others go into ``skipped`` with the reason."""
    reporter: Reporter = PrintReporter()
    code = code_fingerprint()
    rows = []
    with folder_lock(out, DEMO_LOCK, "another demo or benchmark is running in this folder"):
        used_seeds, _ = prepare_kb(out, config.demo, reporter)
        cases, items = plan(packaged().half(Half.DEV), Half.DEV, config, used_seeds)
        for spec in specs:
            print(f"{spec}:", file=sys.stderr, flush=True)
            problem = check_available(spec)
            if problem:
                print(f"  skipped: {problem}", file=sys.stderr)
                skipped[spec] = problem
                continue
            folder = encoder_folder(out, spec)
            build = ensure_kb(folder, spec, out / "logs", code)
            results = run_cases(
                folder / "generalize-dev.jsonl", folder / "kb", cases, items, config, reporter
            )
            rows.append(
                {
                    "encoder": spec,
                    **summarize(results),
                    "retrieval": retrieval_hits(folder / "kb", out / "logs", results),
                    "build_s": build["build_s"],
                    "kb": build["kb"],
                    # The episodes' own times (the first retrieval loads the model).
                    "episodes_s": round(sum(row.get("seconds", 0.0) for row in results), 1),
                    "outcomes": {row["key"]: bool(row["success"]) for row in results},
                }
            )
    return rows


def retrieval_hits(kb_dir: Path, logs: Path, results: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kind with one template (reworded, recorded): the share of the episodes' tasks whose
    first (first 4) retrieved traces were recorded from that template - what the encoder
    changes, before planning and binding. Templates from SimPhone's truth files."""
    from guigraph.graph.kb import KnowledgeBase

    template_of = {
        path.stem: json.loads(path.read_text())["template_id"]
        for path in (logs / "truth").glob("*.json")
    }
    hits: dict[str, list[int]] = {}  # kind -> [top-1 hits, top-4 hits, tasks]
    with KnowledgeBase.open(kb_dir) as kb:
        for row in results:
            if row["memory"] != MEMORIES[0] or row["kind"] == "pairing":
                continue  # each task once; a pairing is of no recorded template
            found = [template_of[t.episode_id] for t, _ in kb.search_traces(row["instruction"], 4)]
            counts = hits.setdefault(row["kind"], [0, 0, 0])
            counts[0] += int(found[:1] == [row["template_id"]])
            counts[1] += int(row["template_id"] in found)
            counts[2] += 1
    return {
        kind: {"hit@1": round(top1 / n, 3), "hit@4": round(top4 / n, 3), "tasks": n}
        for kind, (top1, top4, n) in hits.items()
    }


def table(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    header = ["encoder", "build s", "episodes s"] + [
        f"{kind} {memory}" for kind in KINDS for memory in MEMORIES
    ]
    header += [f"{kind} hit@1/@4" for kind in ("reworded", "recorded")]
    lines = []
    for row in rows:
        cells = [row["encoder"], str(row["build_s"]), str(row["episodes_s"])]
        for kind in KINDS:
            for memory in MEMORIES:
                rate = row[str(kind)][memory]
                cells.append(f"{rate['sr']:.3f} ({rate['successes']}/{rate['episodes']})")
        for source in ("reworded", "recorded"):
            hit = row["retrieval"].get(source, {})
            cells.append(f"{hit.get('hit@1')} / {hit.get('hit@4')}")
        lines.append(cells)
    return header, lines


def print_changes(rows: list[dict[str, Any]]) -> None:
    """Cases (kind|item|seed, both memories) whose success differs from the first encoder's."""
    if len(rows) < 2:
        return
    base = rows[0]
    for row in rows[1:]:
        for memory in MEMORIES:
            turned: list[str] = []
            broken: list[str] = []
            for key, success in sorted(row["outcomes"].items()):
                _, kind, case_memory, item_id, seed = key.split("|")
                if case_memory != memory or base["outcomes"].get(key) in (None, success):
                    continue
                (turned if success else broken).append(f"{kind} {item_id} @{seed}")
            print(f"\n{row['encoder']} vs {base['encoder']}, {memory}:")
            print(f"  turned ({len(turned)}): " + ", ".join(turned))
            print(f"  broken ({len(broken)}): " + ", ".join(broken))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="a demo folder (or a new one)")
    parser.add_argument("--episodes", type=int, default=300, help="demo logs: episodes")
    parser.add_argument("--seed", type=int, default=11, help="demo logs: recording seed")
    parser.add_argument(
        "--encoder", action="append", default=[], help="another encoder spec (repeatable)"
    )
    parser.add_argument("--frozen", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.frozen:
        parser.error(
            "the frozen half is run once, by `guigraph eval generalize --frozen`, for the "
            "reported figure; encoder comparisons use the development half only"
        )
    specs = list(dict.fromkeys([*DEFAULT_ENCODERS, *args.encoder]))
    config = GeneralizeConfig(DemoConfig(episodes=args.episodes, seed=args.seed), Half.DEV)
    bench = benchrun.start("generalize-encoders")
    skipped: dict[str, str] = {}
    try:
        rows = measure(args.out, config, specs, skipped)
    except GuigraphError as exc:
        sys.exit(f"error: {exc}")
    for row in rows:
        print(json.dumps({k: v for k, v in row.items() if k != "outcomes"}))
    header, lines = table(rows)
    print(" | ".join(header))
    for cells in lines:
        print(" | ".join(cells))
    print_changes(rows)
    # An encoder that cannot run here stays in the table with the reason.
    lines += [
        [spec, *(["–"] * (len(header) - 2)), f"not run: {why}"] for spec, why in skipped.items()
    ]
    bench.table(
        f"Development half, SR per kind and memory (logs: {args.episodes} episodes, seed "
        f"{args.seed}); retrieval hits: the task's template among the first 1 / 4 traces",
        header,
        lines,
    )
    for row in rows:
        bench.figure(f"{row['encoder']}.reworded.graph.sr", row["reworded"]["graph"]["sr"])
    bench.save()


if __name__ == "__main__":
    main()
