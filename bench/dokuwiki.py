"""DokuWiki end to end: a person's demonstrations, the workflow graph, new values, new wordings.

A private DokuWiki (``envs.web.dokuwiki``) serves the task file's four workflows (create a page,
append a line, add a user, search and open a page). For each workflow a scripted person records
``--demos`` demonstrations through ``guigraph record --env web`` with real input (hesitation,
a slip corrected, an extra click on nothing); the knowledge base is built from that folder by
the code ``guigraph build`` runs; then a fresh model-free team runs each workflow on values no
demonstration used (``new_values``) and on wordings no demonstration used (``new_wordings``),
with the workflow graph and with the trace baseline. The wiki's own files decide success.
Each case is one line of ``results.jsonl`` in ``--out`` (a killed run resumes).

    nice -n 10 .venv/bin/python bench/dokuwiki.py --out /tmp/wiki-bench
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import benchrun
from guigraph.envs.web import taskfile
from guigraph.envs.web.dokuwiki import TASKS, DokuWiki

PASSWORD = "Wiki-Bench-Pass-7"
WORKFLOWS = ("create_page", "append_line", "add_user", "search_open")
NAMES = ["Olga Park", "Hiro Tanaka", "Dana Weiss", "Pablo Ruiz", "Mina Okafor", "Tomas Berg",
         "Lena Fischer", "Omar Haddad", "Sara Lind", "Ivan Petrov", "Aiko Mori", "Nora Quinn",
         "Raul Ortega", "Eva Novak", "Kofi Mensah", "Lucia Romano", "Jonas Weber", "Maya Cohen",
         "Felix Braun", "Ines Duarte", "Yusuf Demir", "Clara Holm"]  # fmt: skip
TEXTS = ["Water the tomatoes daily.", "Bake at 180 degrees.", "Bring a map and water.",
         "The club meets on Fridays.", "Return books within a month.", "Tickets cost five euros.",
         "Glaze before the second firing.", "Check the tyres every week.",
         "The telescope is in room 4.", "Use thin layers of paint.", "Start with a simple scarf.",
         "Always check the knots twice.", "Wind is strongest after noon.",
         "Let the dough rest overnight.", "Read one poem every morning.",
         "Hooks are in the blue box.", "Breathe slowly and stretch.", "Rehearsals start at six.",
         "Pack a warm sleeping bag.", "Wax the board before going out.",
         "Binoculars are by the door.", "Lessons are on Tuesday evenings."]  # fmt: skip
NEW_PAGES = ["garden", "recipes", "hiking", "chess", "library", "cinema", "pottery", "cycling",
             "astronomy", "painting", "knitting", "climbing", "sailing", "baking", "poetry",
             "fishing", "yoga", "theatre", "camping", "surfing", "birding", "dancing"]  # fmt: skip
LINES = ["Call the printer repair service.", "Order more coffee.", "Book the train to Lyon.",
         "Review the quarterly numbers.", "Plan the summer party.", "Tune the old piano.",
         "Renew the domain name.", "Clean the fridge on Friday.", "Update the team photo.",
         "Send the invoices to Marta.", "Buy new chairs for room 2.", "Archive the old tickets.",
         "Fix the broken lamp.", "Invite the new interns.", "Move the server rack.",
         "Print the safety posters.", "Check the fire alarm.", "Water the office plants.",
         "Replace the whiteboard pens.", "Collect the parking badges.", "Test the backup disk.",
         "Write the holiday rota."]  # fmt: skip
EXISTING = ["projects", "meetings", "travel", "budget", "events", "music", "sports", "kitchen",
            "office", "finance", "marketing", "support"]  # fmt: skip
GROUPS = ["editors", "reviewers", "authors", "admins", "guests", "writers"]
#: Wordings no demonstration used (the task file's own wordings are the demonstrated ones).
NEW_WORDINGS = {
    "create_page": [
        "Sign in and start a new wiki page named {page} containing {text}",
        "Please log in and write a page {page} whose content is {text}",
        "Create a page {page} with the text {text} after logging in",
        "Log into the wiki and add a new page {page} reading {text}",
    ],
    "append_line": [
        "Sign in and put the line {line} at the bottom of the page {page}",
        "Please log in and extend the page {page} with the line {line}",
        "Append the line {line} to the page {page} after logging in",
        "Log into the wiki and write {line} at the end of {page}",
    ],
    "add_user": [
        "Sign in and create an account {login} for {name}, email {email}, group {group}",
        "Please log in and add {name} as the user {login} with email {email} in group {group}",
        "As admin, add a user {login} called {name} ({email}) to the {group} group",
        "Log into the wiki and set up the user {login}: {name}, {email}, group {group}",
    ],
    "search_open": [
        "Look up {page} in the wiki search and go to that page",
        "Use the search to find the {page} page and open it",
        "Please search for the page {page} and show it",
        "Find {page} through the search box and visit the page",
    ],
}


def values_for(workflow: str, index: int, round_: int = 0) -> dict[str, str]:
    """The values of case ``index`` (0-5 demonstrations, 6-13 new values, 14-21 new
    wordings) in evaluation round ``round_`` (one per memory): never the same value in two
    cases where the wiki keeps what a case did (a page created, a user added)."""
    mark = str(round_ + 1) if round_ else ""
    if workflow == "create_page":
        return {"page": NEW_PAGES[index] + mark, "text": TEXTS[index]}
    if workflow == "append_line":
        return {"page": EXISTING[index % len(EXISTING)], "line": LINES[index]}
    if workflow == "add_user":
        name = NAMES[index]
        login = name.split()[0].lower() + mark
        email = f"{name.replace(' ', '.').lower()}{mark}@example.org"
        return {"login": login, "name": name, "email": email, "group": GROUPS[index % 6]}
    return {"page": EXISTING[(index * 5) % len(EXISTING)]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--demos", type=int, default=6)
    parser.add_argument("--cases", type=int, default=8, help="per workflow and split")
    parser.add_argument("--memories", default="graph,trace")
    parser.add_argument("--workflows", default=",".join(WORKFLOWS))
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument(
        "--seed", type=int, default=0, help="the person's recording seed (hesitations, slips)"
    )
    parser.add_argument("--note", action="append", default=[], help="a fact for the figure")
    args = parser.parse_args(argv)
    if not 1 <= args.demos <= 6 or not 1 <= args.cases <= 8:
        parser.error("--demos takes 1..6 and --cases 1..8")
    # SIGTERM ends the run like Ctrl-C: the wiki's server is stopped on the way out.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(f"stopped by signal {number}"))
    run = benchrun.start("dokuwiki")
    workflows = [w for w in args.workflows.split(",") if w]
    memories = [m for m in args.memories.split(",") if m]
    args.out.mkdir(parents=True, exist_ok=True)
    tasks = taskfile.load(TASKS)
    with DokuWiki(PASSWORD, root=args.out / "wiki") as wiki:
        given = {"base": wiki.base_url, "wiki": str(wiki.root), "password": PASSWORD}
        _record(tasks, wiki, given, workflows, args.demos, args.out / "logs", args.seed)
        _build(args.out)
        rows = _evaluate(tasks, given, workflows, memories, args, args.out / "results.jsonl")
    evaluated = [w for w in WORKFLOWS if any(r["workflow"] == w for r in rows)]
    _report(run, rows, evaluated, memories, args)
    return 0


def _record(
    tasks: taskfile.TaskFile, wiki: DokuWiki, given: dict[str, str], workflows: list[str],
    demos: int, logs: Path, seed: int = 0,
) -> None:  # fmt: skip
    from guigraph.envs.web.dokuwiki_person import demonstrate

    done_file = logs / "recorded.json"
    done = set(json.loads(done_file.read_text())) if done_file.is_file() else set()
    for workflow in workflows:
        spec = tasks.spec(workflow)
        for index in range(demos):
            key = f"{workflow}/{index}"
            if key in done:
                continue
            values = values_for(workflow, index)
            wording = spec.instructions[index % len(spec.instructions)]
            drawn = tasks.draw(workflow, index, {**given, **values}, instruction=wording)
            started = time.monotonic()
            demonstrate(wiki.base_url, workflow, drawn.values, drawn.task.instruction,
                        PASSWORD, logs, seed=seed * 1000 + index)  # fmt: skip
            print(f"demo {key}: {time.monotonic() - started:.1f} s", file=sys.stderr)
            done.add(key)
            done_file.write_text(json.dumps(sorted(done)))


def _build(out: Path) -> None:
    from guigraph.graph.from_logs import build_from_logs

    if not (out / "kb" / "kb.sqlite").is_file():
        summary, stats = build_from_logs(out / "logs", out / "kb")
        if summary.skipped or not stats["nodes"]:
            raise SystemExit(f"the build took nothing: {summary.skipped[:2]}")


def _cases(workflows: list[str], memories: list[str], count: int) -> list[tuple[str, str, int]]:
    return [
        (workflow, split, index)
        for workflow in workflows
        for split in ("new_values", "new_wordings")
        for index in range(count)
    ]


def _evaluate(
    tasks: taskfile.TaskFile, given: dict[str, str], workflows: list[str], memories: list[str],
    args: argparse.Namespace, path: Path,
) -> list[dict[str, Any]]:  # fmt: skip
    from guigraph.agents.loop import Budget, run_episode
    from guigraph.agents.team import TeamOptions, rule_team
    from guigraph.choices import Memory
    from guigraph.compiler.index import GraphView
    from guigraph.envs.web.env import WebEnv
    from guigraph.graph.kb import KnowledgeBase

    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
    done = {r["key"] for r in rows}
    env = WebEnv(tasks=TASKS, params=given, timeout=20.0)
    try:
        with KnowledgeBase.open(args.out / "kb") as kb, path.open("a") as sink:
            view = GraphView.load(kb)
            for workflow, split, index in _cases(workflows, memories, args.cases):
                spec = tasks.spec(workflow)
                case = 6 + index + (8 if split == "new_wordings" else 0)
                if split == "new_wordings":
                    wording = NEW_WORDINGS[workflow][index % len(NEW_WORDINGS[workflow])]
                else:
                    wording = spec.instructions[index % len(spec.instructions)]
                for memory in memories:
                    key = f"{workflow}|{split}|{index}|{memory}"
                    if key in done:
                        continue
                    # Each memory acts on values of its own: the wiki keeps what a case did.
                    values = values_for(workflow, case, memories.index(memory))
                    drawn = tasks.draw(workflow, case, {**given, **values}, instruction=wording)
                    task = env.add_task(drawn)
                    team = rule_team(kb, view, TeamOptions(memory=Memory(memory)))
                    started = time.monotonic()
                    try:
                        result = run_episode(env, team, task, seed=case,
                                             budget=Budget(max_steps=args.max_steps))  # fmt: skip
                        verdict = env.evaluate()
                        steps, reason, error = len(result.steps), result.reason, ""
                    except Exception as exc:  # a broken page fails this case, not the run
                        verdict, steps, reason, error = None, 0, "error", repr(exc)[:300]
                        traceback.print_exc()
                    row = {
                        "key": key, "workflow": workflow, "split": split, "memory": memory,
                        "instruction": task.instruction,
                        "success": bool(verdict and verdict.success),
                        "detail": verdict.detail if verdict else error, "steps": steps,
                        "reason": reason, "seconds": round(time.monotonic() - started, 1),
                    }  # fmt: skip
                    print(json.dumps(row), file=sys.stderr)
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
                    rows.append(row)
    finally:
        env.close()
    return rows


def _report(
    run: Any, rows: list[dict[str, Any]], workflows: list[str], memories: list[str],
    args: argparse.Namespace,
) -> None:  # fmt: skip
    table = []
    for workflow in workflows:
        for split in ("new_values", "new_wordings"):
            cells: list[Any] = [workflow, split]
            for memory in memories:
                wins = [
                    r["success"]
                    for r in rows
                    if (r["workflow"], r["split"], r["memory"]) == (workflow, split, memory)
                ]
                cells.append(f"{sum(wins)}/{len(wins)}" if wins else "-")
            table.append(cells)
    for split in ("new_values", "new_wordings"):
        for memory in memories:
            wins = [r["success"] for r in rows if (r["split"], r["memory"]) == (split, memory)]
            if wins:
                run.figure(f"{memory}_{split}_sr", round(sum(wins) / len(wins), 3))
    run.table(
        f"DokuWiki: {args.demos} demonstrations per workflow, success on new values and new "
        "wordings",
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
