"""DokuWiki end to end: a person's demonstrations, the workflow graph, new values, new wordings.

A private DokuWiki (``envs.web.dokuwiki``) serves the task file's four workflows (create a page,
append a line, add a user, search and open a page). For each workflow a scripted person records
``--demos`` demonstrations through ``guigraph record --env web`` with real input (hesitation,
a slip corrected, an extra click on nothing); the knowledge base is built from that folder by
the code ``guigraph build`` runs; then a fresh model-free team runs each workflow on values no
demonstration used (``new_values``) and on wordings no demonstration used, with the workflow
graph and with the trace baseline. The new wordings are those of
``envs/web/dokuwiki_wordings.toml``: a development set (``new_wordings``) that guides work on
the team, and a frozen set (``frozen_wordings``, written before any run) run only for the
reported figure. The wiki's own files decide success.
Each case is one line of ``results.jsonl`` in ``--out`` (a killed run resumes).

    nice -n 10 .venv/bin/python bench/dokuwiki.py --out /tmp/wiki-bench

The same run as ``guigraph demo --world dokuwiki`` (``eval.dokuwiki_demo``), recorded as a figure.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import benchrun
from guigraph.envs.web.dokuwiki_values import SPLITS, WORKFLOWS
from guigraph.eval.dokuwiki_demo import RESULTS, DokuWikiDemoConfig, run_dokuwiki_demo


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--demos", type=int, default=6)
    parser.add_argument("--cases", type=int, default=8, help="per workflow and split")
    parser.add_argument("--memories", default="graph,trace")
    parser.add_argument(
        "--splits", default=",".join(SPLITS),
        help="new_values, new_wordings (development), frozen_wordings (the reported figure)",
    )  # fmt: skip
    parser.add_argument("--workflows", default=",".join(WORKFLOWS))
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument(
        "--seed", type=int, default=0, help="the person's recording seed (hesitations, slips)"
    )
    parser.add_argument("--note", action="append", default=[], help="a fact for the figure")
    args = parser.parse_args(argv)
    # SIGTERM ends the run like Ctrl-C: the wiki's server is stopped on the way out.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(f"stopped by signal {number}"))
    run = benchrun.start("dokuwiki")
    config = DokuWikiDemoConfig(
        demos=args.demos, cases=args.cases, workflows=_listed(args.workflows),
        splits=_listed(args.splits), memories=_listed(args.memories), max_steps=args.max_steps,
        person_seed=args.seed, on_case=lambda row: print(json.dumps(row), file=sys.stderr),
    )  # fmt: skip
    run_dokuwiki_demo(args.out, config)
    rows = [json.loads(line) for line in (args.out / RESULTS).read_text().splitlines()]
    evaluated = [w for w in WORKFLOWS if any(r["workflow"] == w for r in rows)]
    _report(run, rows, evaluated, list(config.memories), args)
    return 0


def _listed(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.split(",") if part)


def _report(
    run: Any, rows: list[dict[str, Any]], workflows: list[str], memories: list[str],
    args: argparse.Namespace,
) -> None:  # fmt: skip
    table = []
    for workflow in workflows:
        for split in SPLITS:
            cells: list[Any] = [workflow, split]
            for memory in memories:
                wins = [
                    r["success"]
                    for r in rows
                    if (r["workflow"], r["split"], r["memory"]) == (workflow, split, memory)
                ]
                cells.append(f"{sum(wins)}/{len(wins)}" if wins else "-")
            if any(cell != "-" for cell in cells[2:]):
                table.append(cells)
    for split in SPLITS:
        for memory in memories:
            wins = [r["success"] for r in rows if (r["split"], r["memory"]) == (split, memory)]
            if wins:
                run.figure(f"{memory}_{split}_sr", round(sum(wins) / len(wins), 3))
    run.table(
        f"DokuWiki: {args.demos} demonstrations per workflow, success on new values, new "
        "wordings (development) and new wordings (frozen)",
        ["workflow", "split", *memories],
        table,
    )
    run.note(
        f"{len(rows)} episodes; the wiki's files decide success (data/pages, users.auth.php); "
        f"the person's recording seed {args.seed}"
    )
    for note in args.note:
        run.note(note)
    run.save()


if __name__ == "__main__":
    raise SystemExit(main())
