"""A spreadsheet of 50 rows run through one DokuWiki workflow, killed with SIGKILL and resumed.

    nice -n 10 .venv/bin/python bench/workflow_dokuwiki.py [--rows 50] [--kill-after 20] [--json]

A private DokuWiki (``envs.web.dokuwiki``) and the task file's ``create_page`` workflow: a
scripted person records ``--demos`` demonstrations through ``guigraph record --env web`` (as
``bench/dokuwiki.py`` does; hesitation, a slip corrected, an extra click), the knowledge base is
built from them, and ``guigraph workflow export`` writes the workflow (the wiki's address and
folder in the file; the password only in the environment). ``rows.csv`` holds ``--rows`` pages
no demonstration created. ``guigraph workflow run wf.yaml --data rows.csv --out RUN`` runs in
a process of its own, which is killed with SIGKILL (its browser with it) once ``--kill-after``
rows are done, then the same command is run again and resumes. Success is the wiki's own file
for the page holding the row's text (the task file's check, with the row's values); a row that
was acting when the process was killed counts as failed (it is never run twice). Kept in
``runs/bench-workflow-dokuwiki``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import benchrun
from guigraph.envs.web import taskfile
from guigraph.envs.web.dokuwiki import TASKS, DokuWiki
from guigraph.envs.web.dokuwiki_values import NEW_PAGES, TEXTS
from guigraph.eval.dokuwiki_demo import DokuWikiDemoConfig, build, record
from guigraph.eval.world_demo import _Quiet
from guigraph.graph.kb import KnowledgeBase
from guigraph.workflow.export import export_task
from guigraph.workflow.schema import dump_workflow

WORKFLOW = "create_page"
#: The seed the workflow is exported on (its values are a demonstration's; rows bring theirs).
EXPORT_SEED = 1


def rows_csv(path: Path, tied: dict[str, str], count: int) -> None:
    """``count`` pages no demonstration made, a clean page id and a text each, in the columns
    of the workflow's parameters that write the task's ``page`` and ``text``."""
    from guigraph.workflow.schema import placeholders

    (page,), (text,) = placeholders(tied["page"]), placeholders(tied["text"])
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([page, text])
        for i in range(count):
            # The workflow types the text as the recordings ended it ("{wiki_text}.").
            row_text = f"{TEXTS[i % len(TEXTS)].rstrip('.')}, row {i + 1}"
            writer.writerow([f"{NEW_PAGES[i % len(NEW_PAGES)]}{i + 100}", row_text])


def done_rows(run: Path) -> int:
    lines = (run / "rows.jsonl").read_text().splitlines() if (run / "rows.jsonl").is_file() else []
    return sum(1 for line in lines if '"event": "done"' in line)


def guigraph_run(command: list[str], kill_after: int | None, run: Path) -> tuple[int, str]:
    """Run ``command`` in a process group of its own; with ``kill_after``, SIGKILL the group
    once that many rows are done. Its exit code (negative: killed) and standard output."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, start_new_session=True,
        env=dict(os.environ),  # the wiki's password is in GUIGRAPH_WIKI_PASSWORD (``main``)
    )  # fmt: skip
    if kill_after is None:
        out, _ = process.communicate()
        return process.returncode, out
    while process.poll() is None and done_rows(run) < kill_after:
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return process.returncode, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--kill-after", type=int, default=20, help="Rows done before SIGKILL.")
    parser.add_argument("--demos", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("runs/bench-workflow-dokuwiki"))
    parser.add_argument("--json", action="store_true", help="Print the result as JSON.")
    parser.add_argument(
        "--report", action="store_true", help="Only report the run folder of a finished bench."
    )
    args = parser.parse_args()
    # SIGTERM ends the bench like Ctrl-C: the wiki's server is stopped on the way out.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(f"stopped by signal {number}"))
    bench = benchrun.start("workflow-dokuwiki")
    args.out.mkdir(parents=True, exist_ok=True)
    run = args.out / "run"
    if args.report:
        return report(bench, args, run)
    # An earlier bench's run, wiki and knowledge base: this one measures a fresh run on a wiki
    # without the rows' pages, with the KB built by this code (the recorded demos are kept).
    for earlier in (run, args.out / "wiki", args.out / "kb"):
        if earlier.exists():
            shutil.rmtree(earlier)
    tasks = taskfile.load(TASKS)
    # A throwaway instance's admin password, drawn per run and never written: the workflow
    # reads it from the environment its run inherits.
    password = secrets.token_urlsafe(12)
    os.environ["GUIGRAPH_WIKI_PASSWORD"] = password
    with DokuWiki(password, root=args.out / "wiki") as wiki:
        given = {"base": wiki.base_url, "wiki": str(wiki.root)}
        config = DokuWikiDemoConfig(demos=args.demos, workflows=(WORKFLOW,))
        record(tasks, wiki, {**given, "password": password}, config, args.out / "logs", _Quiet())
        build(args.out)
        with KnowledgeBase.open(args.out / "kb") as kb:
            workflow = export_task(
                kb, WORKFLOW, "web", EXPORT_SEED, {"tasks": str(TASKS), "params": given}
            )
        path = args.out / "wf.yaml"
        path.write_text(dump_workflow(workflow), encoding="utf-8")
        tied = workflow.world.task_params
        if not {"page", "text"} <= set(tied):
            raise SystemExit(f"{path}: the workflow does not write the page and its text: {tied}")
        rows_csv(args.out / "rows.csv", tied, args.rows)
        command = [str(Path(sys.executable).with_name("guigraph")), "workflow", "run",
                   str(path), "--data", str(args.out / "rows.csv"), "--out", str(run),
                   "--concurrency", str(args.concurrency), "--json"]  # fmt: skip
        started = time.monotonic()
        killed, _ = guigraph_run(command, args.kill_after, run)
        done_before = done_rows(run)
        code, _ = guigraph_run(command, None, run)
        seconds = time.monotonic() - started
    kill = {"killed": killed, "done_before": done_before, "resumed": code, "seconds": seconds}
    (args.out / "kill.json").write_text(json.dumps(kill))
    return report(bench, args, run)


def report(bench: Any, args: argparse.Namespace, run: Path) -> int:
    kill = json.loads((args.out / "kill.json").read_text())
    killed, done_before, code, seconds = (
        kill["killed"], kill["done_before"], kill["resumed"], kill["seconds"]
    )  # fmt: skip
    summary: dict[str, Any] = json.loads((run / "summary.json").read_text())
    events = [json.loads(line) for line in (run / "rows.jsonl").read_text().splitlines()]
    starts = [e["row"] for e in events if e["event"] == "started"]
    twice = len(starts) - len(set(starts))
    bench.figure("rows", summary["rows"])
    bench.figure("successes", summary["successes"])
    bench.figure("interrupted", summary["interrupted"])
    bench.figure("rows_run_twice", twice)
    bench.figure("healed_steps", len(summary["healed_steps"]))
    bench.figure("model_calls", summary["model_calls"])
    bench.figure("runner_ms_per_action", summary["runner_ms_per_action"])
    bench.table(
        "One DokuWiki workflow over a CSV, killed with SIGKILL and resumed",
        ["rows", "successes", "done before the kill", "interrupted (not run again)",
         "rows run twice", "healed steps", "model calls", "seconds per row"],
        [[summary["rows"], summary["successes"], done_before, summary["interrupted"], twice,
          len(summary["healed_steps"]), summary["model_calls"],
          round(summary["seconds"] / max(1, summary["rows"]), 2)]],
    )  # fmt: skip
    bench.note(
        f"workflow {WORKFLOW!r} exported from {args.demos} recorded demonstrations; killed "
        f"(exit {killed}) after {done_before} rows, resumed (exit {code}); concurrency "
        f"{args.concurrency}; {seconds:.0f} s for both runs; the wiki's files decide success"
    )
    for failure in summary["failures"]:
        bench.note(f"row {failure['row']}: {failure['failure'][:160]}")
    result = bench.save()
    if args.json:
        print(result.read_text())
    else:
        print(
            f"{summary['successes']}/{summary['rows']} rows succeeded ({summary['interrupted']} "
            f"interrupted by the kill, {twice} run twice) -> {result}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
