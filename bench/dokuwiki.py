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
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
import tomllib
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
         "Felix Braun", "Ines Duarte", "Yusuf Demir", "Clara Holm", "Tariq Aziz", "Helga Lund",
         "Marco Bianchi", "Sofia Lopez", "Erik Dahl", "Amara Obi", "Piotr Nowak",
         "Rosa Marin"]  # fmt: skip
TEXTS = ["Water the tomatoes daily.", "Bake at 180 degrees.", "Bring a map and water.",
         "The club meets on Fridays.", "Return books within a month.", "Tickets cost five euros.",
         "Glaze before the second firing.", "Check the tyres every week.",
         "The telescope is in room 4.", "Use thin layers of paint.", "Start with a simple scarf.",
         "Always check the knots twice.", "Wind is strongest after noon.",
         "Let the dough rest overnight.", "Read one poem every morning.",
         "Hooks are in the blue box.", "Breathe slowly and stretch.", "Rehearsals start at six.",
         "Pack a warm sleeping bag.", "Wax the board before going out.",
         "Binoculars are by the door.", "Lessons are on Tuesday evenings.",
         "Feed the fish twice a day.", "Keep the clay wet.", "Meet at the north gate.",
         "Sharpen the chisels first.", "Prune the roses in March.", "Bring your own cup.",
         "The hall opens at nine.", "Label every jar."]  # fmt: skip
NEW_PAGES = ["garden", "recipes", "hiking", "chess", "library", "cinema", "pottery", "cycling",
             "astronomy", "painting", "knitting", "climbing", "sailing", "baking", "poetry",
             "fishing", "yoga", "theatre", "camping", "surfing", "birding", "dancing",
             "aquarium", "ceramics", "orienteering", "woodwork", "lanterns", "archery", "choir",
             "pantry"]  # fmt: skip
LINES = ["Call the printer repair service.", "Order more coffee.", "Book the train to Lyon.",
         "Review the quarterly numbers.", "Plan the summer party.", "Tune the old piano.",
         "Renew the domain name.", "Clean the fridge on Friday.", "Update the team photo.",
         "Send the invoices to Marta.", "Buy new chairs for room 2.", "Archive the old tickets.",
         "Fix the broken lamp.", "Invite the new interns.", "Move the server rack.",
         "Print the safety posters.", "Check the fire alarm.", "Water the office plants.",
         "Replace the whiteboard pens.", "Collect the parking badges.", "Test the backup disk.",
         "Write the holiday rota.", "Return the rented projector.", "Order new name tags.",
         "Empty the recycling bins.", "Sort the mail on Monday.", "Call the landlord.",
         "Refill the first aid kit.", "Book the meeting room.",
         "Thank the volunteers."]  # fmt: skip
EXISTING = ["projects", "meetings", "travel", "budget", "events", "music", "sports", "kitchen",
            "office", "finance", "marketing", "support"]  # fmt: skip
GROUPS = ["editors", "reviewers", "authors", "admins", "guests", "writers"]
#: Wordings no demonstration used (the task file's own are the demonstrated ones): the
#: ``development`` set guides work, the ``frozen`` one is run only for the reported figure.
WORDINGS = Path(TASKS).with_name("dokuwiki_wordings.toml")
#: Evaluation splits: the task file's wordings with new values, then the two sets of new
#: wordings (each with values of its own).
SPLITS = ("new_values", "new_wordings", "frozen_wordings")
#: The first case index of each split (0-5 are the demonstrations).
FIRST_CASE = {"new_values": 6, "new_wordings": 14, "frozen_wordings": 22}


def values_for(workflow: str, index: int, round_: int = 0) -> dict[str, str]:
    """The values of case ``index`` (0-5 demonstrations, then ``FIRST_CASE`` of each split,
    8 cases each) in evaluation round ``round_`` (one per memory): never the same value in two
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
    if not 1 <= args.demos <= 6 or not 1 <= args.cases <= 8:
        parser.error("--demos takes 1..6 and --cases 1..8")
    # SIGTERM ends the run like Ctrl-C: the wiki's server is stopped on the way out.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(f"stopped by signal {number}"))
    run = benchrun.start("dokuwiki")
    workflows = [w for w in args.workflows.split(",") if w]
    memories = [m for m in args.memories.split(",") if m]
    args.splits = [s for s in args.splits.split(",") if s]
    if unknown := set(args.splits) - set(SPLITS):
        parser.error(f"unknown split {sorted(unknown)[0]!r}: --splits takes {', '.join(SPLITS)}")
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


def _cases(workflows: list[str], splits: list[str], count: int) -> list[tuple[str, str, int]]:
    return [
        (workflow, split, index)
        for workflow in workflows
        for split in splits
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
    wordings = tomllib.loads(WORDINGS.read_text())
    done = {r["key"] for r in rows}
    env = WebEnv(tasks=TASKS, params=given, timeout=20.0)
    try:
        with KnowledgeBase.open(args.out / "kb") as kb, path.open("a") as sink:
            view = GraphView.load(kb)
            for workflow, split, index in _cases(workflows, args.splits, args.cases):
                case = FIRST_CASE[split] + index
                wording = _wording(tasks.spec(workflow).instructions, wordings, workflow, split,
                                   index)  # fmt: skip
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


def _wording(
    own: Sequence[str], wordings: dict[str, Any], workflow: str, split: str, index: int
) -> str:
    """Case ``index``'s wording: the task file's own for new values, else the split's set
    (the development set has four per workflow, each taken twice)."""
    if split == "new_values":
        return own[index % len(own)]
    chosen = wordings["development" if split == "new_wordings" else "frozen"][workflow]
    return str(chosen[index % len(chosen)])


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
