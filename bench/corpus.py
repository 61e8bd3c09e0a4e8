"""The golden corpus (``guigraph.eval.corpus``): write it from a demo folder, or run it on KBs.

    .venv/bin/python bench/corpus.py run tests/golden                         # the checked-in KB
    .venv/bin/python bench/corpus.py run tests/golden --kb /tmp/s13:seed13 /tmp/ni:noids:no-ids
    .venv/bin/python bench/corpus.py make runs/demo tests/golden             # (re)write the cases
    .venv/bin/python bench/corpus.py run tests/golden/dokuwiki                # DokuWiki's
    .venv/bin/python bench/corpus.py make-dokuwiki /tmp/wiki-run tests/golden/dokuwiki --label wiki6
    .venv/bin/python bench/corpus.py make-desktop /tmp/desk9 tests/golden/desktop --label desk9
    .venv/bin/python bench/corpus.py make-miniwob /tmp/wob-run tests/golden/miniwob --label final7

``run`` judges every plan case on each KB (``FOLDER[:LABEL[:SKIN]]``, a demo folder or the
corpus folder itself) and every slot case, and prints the cases lost and gained against what
the corpus recorded for that label (``--failures`` prints every failing case). ``--record``
writes the outcomes as the label's ``held`` (done once per KB when the corpus is written).

``make`` writes the plan cases: the generalization benchmark's development half (reworded and
recorded wordings and pairings, the first world each ran on), every fresh set, and the
lower-cased forms of the development half's reworded and recorded wordings. For each it plans
and runs the episode on the folder's KB: the apps and donors of a plan whose episode
succeeded are the case's expectation; otherwise the recorded wording's (same template and
world), or the template's apps. The values are the task's parameters the wording says that
plans fill from instructions (``slot_parameters``). It never reads the frozen half.

``make-dokuwiki`` writes DokuWiki's corpus (a folder of its own, ``world.json`` naming the
world) from a ``bench/dokuwiki.py`` run folder: its KB stripped of what planning never reads,
its recorded runs named by workflow, and every case of the development splits the bench runs
(new values, new wordings; never the frozen split). A case's values are the parameters its
wording says, its donors the workflow's recorded runs; no world is run: each case is judged on
its plan, and the run's own episodes (graph memory) are printed where they disagree.

``make-desktop`` writes the desktop world's the same way (``strip_kb`` too) from a
``bench/desktop.py`` run folder: every episode of the bench's development part (``--part dev``:
each task's new values at the seeds from ``DEV_SEED_BASE``), never the frozen part, and no
development draw that repeats a frozen episode's wording. A case's values are the parameters
its wording says that the workflow's recorded runs type (an open file is named, never typed).
A ``--part frozen`` run holds no development episode to compare with, and it says so.

``make-miniwob`` writes MiniWoB++'s corpus from a ``bench/eval_web.py`` run folder: its
demonstrations' KB (``demo/kb``) stripped the same way, and ``--per-task`` (2) development cases
of every demonstrated task at seeds ``DEV_SEED_BASE`` (500,000) up, never the demonstrations'
(0 up) nor the evaluation's (1,000,000 up). The page writes the utterance, so one headless
Chromium (the web world, ``WebEnv.make_task`` and ``reset``) draws each case's instruction and
the screen its episode starts on (``screens.jsonl``; ``--reuse`` takes them from the folder
instead); a case's values are the utterance's fields (the miniwob package's extractors) that
every demonstration of the task put in (a number may be put in as that many taps of one
control in a row), its app and donors the task's page and recordings. The
plan is judged as the policy starts it on that screen; the run's graph-memory SR per task is
printed where the share of cases held differs from it by half or more.
"""

from __future__ import annotations

import argparse
import collections
import json
import sqlite3
import string
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.choices import Memory
from guigraph.compiler.index import GraphView
from guigraph.envs import conventions, make
from guigraph.envs.simphone.generalize import Half, Item, Kind, item_task, packaged, recorded_item
from guigraph.envs.simphone.skins import skin_conventions
from guigraph.envs.simphone.tasks import get_template
from guigraph.envs.web import dokuwiki_values, taskfile
from guigraph.envs.web.dokuwiki import TASKS
from guigraph.eval import corpus
from guigraph.eval.demo import evaluated_templates, load_results
from guigraph.eval.dokuwiki_demo import RESULTS, DokuWikiDemoConfig, draw_case, draw_demonstration
from guigraph.eval.suite import eval_seeds
from guigraph.eval.world_demo import DEV_SEED_BASE
from guigraph.graph.kb import KnowledgeBase
from guigraph.graph.records import Edge, Trace
from guigraph.types import Observation, Task

FRESH_SEED = 5101
DEFAULT_LABEL = "seed11"


def _placeholders(wording: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(wording) if name}


def _wording(item: Item, task: Task) -> str:
    """The words with placeholders: the item's, or for a recorded wording the phrasing
    ``make_task`` picked."""
    if item.kind is not Kind.RECORDED:
        return item.wording
    template = get_template(task.template_id)
    return next(
        (p for p in template.phrasings if p.format(**task.params) == task.instruction),
        template.phrasings[0],
    )


def episode(kb: KnowledgeBase, view: GraphView, task: Task, seed: int) -> bool:
    env = make("simphone")
    try:
        team = rule_team(kb, view, TeamOptions(memory=Memory.GRAPH))
        run_episode(env, team, task, seed=seed, budget=Budget(max_steps=40))
        verdict = env.evaluate()
    finally:
        env.close()
    return verdict is not None and verdict.success


def dev_runs(folder: Path) -> list[tuple[str, Item, int]]:
    """The development half's wordings, each on the first world the benchmark ran it on."""
    items = {item.item_id: item for item in packaged().half(Half.DEV)}
    seeds: dict[str, int] = {}
    for row in load_results(folder / "generalize-dev.jsonl"):
        if row["memory"] == "graph":
            seeds.setdefault(row["item_id"], row["seed"])
    runs = []
    for item_id, seed in seeds.items():
        item = items.get(item_id)
        if item is None:
            template = item_id.split("#", 1)[0]
            item = recorded_item(template)
        runs.append(("dev", item, seed))
    return runs


def fresh_runs() -> list[tuple[str, Item, int]]:
    import fresh_pairings

    return [
        (f"fresh:{name}", item, FRESH_SEED)
        for name, fresh in fresh_pairings.SETS.items()
        for item in fresh_pairings.fresh_items(fresh)
    ]


def seen_runs(count: int = 3) -> list[tuple[str, Item, int]]:
    """The demo's seen cases: every template the demo holds out none of, in its own recorded
    wording, at the demo's first ``count`` seeds for seen templates."""
    seen, _ = evaluated_templates()
    seeds = eval_seeds("seen", count, ())
    return [("seen", recorded_item(template), seed) for template in seen for seed in seeds]


def slot_parameters(plans: Iterable[tuple[Task, corpus.PlanSignature]]) -> set[str]:
    """Parameters some plan for a recorded wording puts in (the city, the contact); those no
    plan ever does are controls or are looked up on screen (the wifi's "on", a site)."""
    return {name for task, plan in plans for name, value in task.params.items() if plan.uses(value)}


def make_cases(folder: Path, out: Path) -> None:
    templates = corpus.load_templates(folder / "logs")
    with KnowledgeBase.open(folder / "kb") as kb, conventions.using(skin_conventions("standard")):
        view = GraphView.load(kb)
        cases = written_cases(kb, view, templates, [*dev_runs(folder), *fresh_runs()])
    out.mkdir(parents=True, exist_ok=True)
    (out / corpus.PLAN_CASES).write_text("".join(corpus.to_line(c) + "\n" for c in cases))
    (out / corpus.TEMPLATES_FILE).write_text(json.dumps(templates, indent=0, sort_keys=True))
    held = sum(c.held[DEFAULT_LABEL] for c in cases)
    print(f"{len(cases)} plan cases written to {out}, {held} held")


def add_seen(folder: Path) -> None:
    """Add the demo's seen cases and their lower-cased forms to the corpus in ``folder``
    (its own KB), replacing any written before."""
    templates = corpus.load_templates(folder)
    with KnowledgeBase.open(folder / "kb") as kb, conventions.using(skin_conventions("standard")):
        view = GraphView.load(kb)
        added = written_cases(kb, view, templates, seen_runs())
    kept = [c for c in corpus.load_plan_cases(folder) if c.source not in ("seen", "lower:seen")]
    cases = [*kept, *added]
    (folder / corpus.PLAN_CASES).write_text("".join(corpus.to_line(c) + "\n" for c in cases))
    held = sum(c.held[DEFAULT_LABEL] for c in added)
    print(f"{len(added)} seen cases added to {folder}, {held} held")


def written_cases(
    kb: KnowledgeBase, view: GraphView, templates: dict[str, str],
    runs: Sequence[tuple[str, Item, int]],
) -> list[corpus.PlanCase]:  # fmt: skip
    """The cases of ``runs``, each judged by its plan and its episode on ``kb``; a recorded or
    reworded wording of the development half or the seen set also lower-cased."""
    tasks = [(source, item, item_task(item, seed), seed) for source, item, seed in runs]
    # Fresh sets reuse item ids ("fresh.info.weather.0" in two sets): keyed by source too.
    plans = {
        (source, item.item_id, seed): corpus.plan_signature(kb, view, task.instruction, templates)
        for source, item, task, seed in tasks
    }
    recorded = {
        (task.template_id, seed): plans[source, item.item_id, seed]
        for source, item, task, seed in tasks
        if item.kind is Kind.RECORDED
    }
    slots = slot_parameters(
        (task, plans[source, item.item_id, seed])
        for source, item, task, seed in tasks
        if item.kind is Kind.RECORDED
    )
    print(f"slot parameters: {sorted(slots)}")
    cases = []
    for source, item, task, seed in tasks:
        plan = plans[source, item.item_id, seed]
        ok = episode(kb, view, task, seed)
        reference = plan if ok else recorded.get((task.template_id, seed))
        case = _case(source, item, task, seed, reference, ok, slots)
        verdict = corpus.judge(case, plan)
        if ok != verdict.passed:
            # The plan alone does not show everything: which field a value is read from,
            # a tap the screen then grounds on a longer label. The episode decides.
            print(f"episode {ok}, plan judged {verdict.passed}: {case.case_id} {verdict.why}")
        cases.append(replace(case, held={DEFAULT_LABEL: verdict.passed and ok}, episode=ok))
        if source in ("dev", "seen") and item.kind is not Kind.PAIRING:
            cases.append(_lowered(cases[-1], kb, view, templates))
    return cases


def _case(
    source: str, item: Item, task: Task, seed: int, reference: corpus.PlanSignature | None,
    ok: bool, slots: set[str],
) -> corpus.PlanCase:  # fmt: skip
    """The case of one wording: its own plan where its episode succeeded (``ok``) is its
    expectation; otherwise the recorded wording's (same template and world), or the
    template's apps."""
    said = _placeholders(_wording(item, task)) & slots
    values = {name: task.params[name] for name in sorted(said)}
    if reference is not None and (ok or item.kind is not Kind.PAIRING):
        apps, donors = reference.apps, [reference.donors]
    else:
        apps, donors = tuple(get_template(task.template_id).apps), []
    if item.kind is not Kind.PAIRING:
        donors.append((task.template_id,))
    suffix = f"@{seed}" if source == "seen" else ""
    return corpus.PlanCase(
        f"{source}/{item.item_id}{suffix}", source, task.instruction, task.template_id, seed,
        values, tuple(apps), tuple(dict.fromkeys(tuple(d) for d in donors)),
    )  # fmt: skip


def _lowered(
    case: corpus.PlanCase, kb: KnowledgeBase, view: GraphView, templates: dict[str, str]
) -> corpus.PlanCase:
    """The case as speech-to-text or a phone keyboard writes it: all lower case."""
    lower = replace(
        case, case_id=f"lower:{case.case_id}", source=f"lower:{case.source}",
        instruction=case.instruction.lower(), episode=None,
    )  # fmt: skip
    plan = corpus.plan_signature(kb, view, lower.instruction, templates)
    return replace(lower, held={DEFAULT_LABEL: corpus.judge(lower, plan).passed})


#: Secrets a DokuWiki task needs to be drawn; no world is run, so none is ever typed.
NO_WORLD = {"password": "unused"}


def make_dokuwiki(run: Path, out: Path, label: str) -> None:
    """DokuWiki's corpus in ``out`` from the ``bench/dokuwiki.py`` run folder ``run``."""
    out.mkdir(parents=True, exist_ok=True)
    strip_kb(run / corpus.KB_FOLDER, out / corpus.KB_FOLDER)
    world = {"world": "dokuwiki", "label": label}
    (out / corpus.WORLD_FILE).write_text(json.dumps(world, indent=1) + "\n")
    tasks = taskfile.load(TASKS)
    with KnowledgeBase.open(out / corpus.KB_FOLDER) as kb:
        traces = kb.traces()
    templates = recorded_workflows(traces, tasks)
    cases = wiki_cases(tasks, traces, templates)
    cases, outcomes = judge_and_write(out, cases, templates, label, "DokuWiki")
    if (run / RESULTS).exists():
        cross_check(cases, outcomes, run / RESULTS)


def judge_and_write(
    out: Path,
    cases: Sequence[corpus.PlanCase],
    templates: dict[str, str],
    label: str,
    world: str,
) -> tuple[list[corpus.PlanCase], list[corpus.Outcome]]:
    """A world folder's cases judged on its KB, written with what held as ``label``, and the
    failures printed: the cases as written and their outcomes."""
    outcomes = corpus.run_on_kb(out, cases, out / corpus.KB_FOLDER, templates, label)
    passed = {o.case_id: o for o in outcomes}
    held_cases = [replace(c, held={label: passed[c.case_id].passed}) for c in cases]
    (out / corpus.PLAN_CASES).write_text("".join(corpus.to_line(c) + "\n" for c in held_cases))
    (out / corpus.TEMPLATES_FILE).write_text(json.dumps(templates, indent=0, sort_keys=True))
    held = sum(c.held[label] for c in held_cases)
    print(f"{len(held_cases)} {world} plan cases written to {out}, {held} held as {label!r}")
    for outcome in outcomes:
        if not outcome.passed:
            print(f"  fails  {outcome.case_id}: {outcome.why}")
    return held_cases, outcomes


def strip_kb(source: Path, out: Path) -> None:
    """A copy of the KB at ``source`` without what planning never reads (the screens'
    thumbnails and exemplar vectors, the per-step node assignments, the state index): the
    checked-in KB stays small, and plans on it are the full KB's."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_bytes((source / "manifest.json").read_bytes())
    target = out / "kb.sqlite"
    target.unlink(missing_ok=True)
    with sqlite3.connect(f"file:{source / 'kb.sqlite'}?mode=ro", uri=True) as src:
        copy = sqlite3.connect(target)
        src.backup(copy)
    with copy:
        copy.execute("DELETE FROM exemplars")
        copy.execute("DELETE FROM steps")
        copy.execute("UPDATE nodes SET thumbnail = NULL")
    copy.execute("VACUUM")
    copy.close()


def recorded_workflows(traces: Sequence[Trace], tasks: taskfile.TaskFile) -> dict[str, str]:
    """Recorded episode -> its workflow: the KB keeps each demonstration's instruction, and
    the demo draws demonstration ``i`` of a workflow the same way every time."""
    config = DokuWikiDemoConfig()
    drawn = {
        draw_demonstration(tasks, NO_WORLD, workflow, index).task.instruction: workflow
        for workflow in config.workflows
        for index in range(config.demos)
    }
    unknown = [t.instruction for t in traces if t.instruction not in drawn]
    if unknown:
        raise SystemExit(f"recorded runs no demonstration draws: {unknown[:3]}")
    return {t.episode_id: drawn[t.instruction] for t in traces}


def wiki_cases(
    tasks: taskfile.TaskFile, traces: Sequence[Trace], templates: dict[str, str]
) -> list[corpus.PlanCase]:
    """Every case of the development splits the bench runs, with the values its graph-memory
    episode gets (round 0): the parameters its wording says, the apps its workflow's recorded
    runs work in, the workflow as its donor. Only the development wordings are loaded."""
    wordings = {"development": dokuwiki_values.load_wordings()["development"]}
    apps = {templates[t.episode_id]: t.apps for t in traces}
    config = DokuWikiDemoConfig()
    cases = []
    for workflow in config.workflows:
        for split in dokuwiki_values.DEVELOPMENT:
            for index in range(config.cases):
                drawn = draw_case(tasks, NO_WORLD, wordings, workflow, split, index)
                wording = dokuwiki_values.wording(
                    tasks.spec(workflow).instructions, wordings, workflow, split, index
                )
                said = sorted(_placeholders(wording) & set(drawn.values))
                cases.append(corpus.PlanCase(
                    f"dokuwiki:{split}/{workflow}#{index}", f"dokuwiki:{split}",
                    drawn.task.instruction, workflow, dokuwiki_values.FIRST_CASE[split] + index,
                    {name: drawn.values[name] for name in said}, apps[workflow],
                    ((workflow,),),
                ))  # fmt: skip
    return cases


def cross_check(
    cases: Sequence[corpus.PlanCase], outcomes: Sequence[corpus.Outcome], results: Path
) -> None:
    """Where the run's graph-memory episode of a case and the case's plan disagree."""
    episodes = graph_episodes(results)
    passed = {o.case_id: o.passed for o in outcomes}
    agree = 0
    for case in cases:
        episode = episodes.get(case.case_id)
        if episode is None or episode["instruction"] != case.instruction:
            print(f"  no episode of {case.case_id} in {results}")
            continue
        if bool(episode["success"]) == passed[case.case_id]:
            agree += 1
            continue
        print(
            f"  episode {episode['success']} ({episode['steps']} steps: {episode['detail']}), "
            f"plan judged {passed[case.case_id]}: {case.case_id}"
        )
    print(f"episodes and plans agree on {agree}/{len(cases)} cases")


def graph_episodes(results: Path) -> dict[str, dict[str, Any]]:
    """Case id -> the run's graph-memory row of it; the frozen split's rows are passed over."""
    episodes = {}
    for row in load_results(results):
        if row["split"] in dokuwiki_values.DEVELOPMENT and row["memory"] == "graph":
            workflow, split, index, _ = row["key"].split("|")
            episodes[f"dokuwiki:{split}/{workflow}#{index}"] = row
    return episodes


#: The desktop bench's episodes: its ``--seeds`` default, and its demonstrations per task.
DESKTOP_SEEDS = 6
DESKTOP_DEMOS = 6


def make_desktop(run: Path, out: Path, label: str) -> None:
    """The desktop world's corpus in ``out`` from the ``bench/desktop.py`` run folder ``run``:
    the cases of the bench's development part (``--part dev``), never its frozen one."""
    out.mkdir(parents=True, exist_ok=True)
    strip_kb(run / corpus.KB_FOLDER, out / corpus.KB_FOLDER)
    world = {"world": "desktop", "label": label}
    (out / corpus.WORLD_FILE).write_text(json.dumps(world, indent=1) + "\n")
    with KnowledgeBase.open(out / corpus.KB_FOLDER) as kb:
        traces = kb.traces()
    templates = desktop_workflows(traces)
    cases = desktop_cases(traces, templates)
    cases, outcomes = judge_and_write(out, cases, templates, label, "desktop")
    if (run / "results.jsonl").exists():
        desktop_cross_check(cases, outcomes, run / "results.jsonl")


def desktop_workflows(traces: Sequence[Trace], recordings: int = 10) -> dict[str, str]:
    """Recorded episode -> its workflow: the bench draws demonstration ``n`` of a task of
    recording seed ``s`` as the task's seed ``s * RECORDING_STRIDE + n`` (development values);
    the first ``recordings`` recording seeds are drawn."""
    import desktop
    from guigraph.envs.desktop import tasks

    drawn = {}
    for name in sorted(tasks.TEMPLATES):
        for recording in range(recordings):
            for number in range(DESKTOP_DEMOS):
                task = tasks.make(name, recording * desktop.RECORDING_STRIDE + number)
                assert task is not None
                drawn[task.instruction] = name
    unknown = [t.instruction for t in traces if t.instruction not in drawn]
    if unknown:
        raise SystemExit(f"recorded runs no demonstration draws: {unknown[:3]}")
    return {t.episode_id: drawn[t.instruction] for t in traces}


def desktop_cases(traces: Sequence[Trace], templates: dict[str, str]) -> list[corpus.PlanCase]:
    """Every episode of the desktop bench's development part: each task on the new-value
    seeds from ``DEV_SEED_BASE`` (the frozen part's start at ``EVAL_SEED_BASE``), with the
    parameters its wording says that the workflow's recorded runs put in (a file that is
    already open is named but never typed), the apps those runs work in, the workflow as donor.
    A case whose wording a frozen episode has word for word is left out."""
    import desktop
    from guigraph.envs.desktop import tasks

    apps = {templates[t.episode_id]: t.apps for t in traces}
    frozen = desktop_frozen_instructions()
    cases = []
    for name in sorted(tasks.TEMPLATES):
        said = _placeholders(tasks.template(name).instruction) & put_in(traces, templates, name)
        for index in range(DESKTOP_SEEDS):
            seed = desktop.DEV_SEED_BASE + index
            task = tasks.make(name + tasks.NEW_VALUES, seed)
            assert task is not None
            if task.instruction in frozen:
                print(f"  passed over {name}@{seed}: the frozen part has its wording")
                continue
            cases.append(corpus.PlanCase(
                f"desktop:dev/{name}@{seed}", "desktop:dev", task.instruction, name, seed,
                {slot: task.params[slot] for slot in sorted(said)}, apps[name], ((name,),),
            ))  # fmt: skip
    return cases


def desktop_frozen_instructions(seeds: int = DESKTOP_SEEDS) -> set[str]:
    """The instructions of the desktop bench's reported (frozen) part: both parts draw from
    the held-out values, so a development seed can draw a reported wording word for word;
    such a case stays out of the corpus."""
    from guigraph.envs.desktop import tasks
    from guigraph.eval.world_demo import EVAL_SEED_BASE

    drawn = (
        tasks.make(n + tasks.NEW_VALUES, EVAL_SEED_BASE + i)
        for n in tasks.TEMPLATES
        for i in range(seeds)
    )
    return {task.instruction for task in drawn if task is not None}


def put_in(traces: Sequence[Trace], templates: dict[str, str], workflow: str) -> set[str]:
    """The parameters every recorded run of ``workflow`` types (its slots' values): the
    person's, read off the demonstrations, not a plan's."""
    import re

    found: set[str] | None = None
    for trace in traces:
        if templates[trace.episode_id] != workflow:
            continue
        params = desktop_demonstration(trace.instruction, workflow).params
        typed = " ".join(trace.values.values())
        mine = {
            slot for slot, value in params.items()
            if re.search(rf"(?<!\w){re.escape(value)}(?!\w)", typed)
        }  # fmt: skip
        found = mine if found is None else found & mine
    return found or set()


def desktop_demonstration(instruction: str, workflow: str, recordings: int = 10) -> Task:
    """The demonstration of ``workflow`` the bench drew with ``instruction``."""
    import desktop
    from guigraph.envs.desktop import tasks

    for seed in range(recordings * desktop.RECORDING_STRIDE):
        task = tasks.make(workflow, seed)
        if task is not None and task.instruction == instruction:
            return task
    raise SystemExit(f"no demonstration of {workflow} draws {instruction!r}")


def desktop_cross_check(
    cases: Sequence[corpus.PlanCase], outcomes: Sequence[corpus.Outcome], results: Path
) -> None:
    """Where the run's graph-memory episode of a case and the case's plan disagree; a run of
    the frozen part holds no development episode, and this says so."""
    episodes = {
        row["key"]: row
        for row in load_results(results)
        if row["memory"] == "graph" and row["seed"] in {c.seed for c in cases}
    }
    passed = {o.case_id: o.passed for o in outcomes}
    agree = compared = 0
    for case in cases:
        episode = episodes.get(f"{case.template}|graph|{case.seed}")
        if episode is None:
            continue
        compared += 1
        if bool(episode["success"]) == passed[case.case_id]:
            agree += 1
            continue
        print(
            f"  episode {episode['success']} ({episode['steps']} steps: {episode['reason']}), "
            f"plan judged {passed[case.case_id]}: {case.case_id}"
        )
    if not compared:
        print(f"  {results} holds no development episode (a --part frozen run)")
        return
    print(f"episodes and plans agree on {agree}/{compared} cases")


#: Development cases drawn per MiniWoB++ task (seeds ``DEV_SEED_BASE`` up).
MINIWOB_CASES = 2


def make_miniwob(run: Path, out: Path, label: str, per_task: int, reuse: bool) -> None:
    """MiniWoB++'s corpus in ``out`` from the ``bench/eval_web.py`` run folder ``run``: the
    KB its demonstrations built (``demo/kb``), stripped; ``per_task`` development cases of
    every demonstrated task, drawn at seeds ``DEV_SEED_BASE`` up (the page writes the
    instruction: one headless Chromium draws them and their first screens, or with ``reuse``
    those of the cases already in ``out``); each judged on its plan as it starts there."""
    out.mkdir(parents=True, exist_ok=True)
    strip_kb(run / "demo" / corpus.KB_FOLDER, out / corpus.KB_FOLDER)
    world = {"world": "miniwob", "label": label}
    (out / corpus.WORLD_FILE).write_text(json.dumps(world, indent=1) + "\n")
    with KnowledgeBase.open(out / corpus.KB_FOLDER) as kb:
        traces, edges = kb.traces(), {e.edge_id: e for e in kb.edges()}
    templates = demonstrated_tasks(run / "demo" / "logs", traces)
    tasks = sorted(set(templates.values()))
    seeds = [DEV_SEED_BASE + n for n in range(per_task)]
    earlier: dict[tuple[str, int], tuple[str, Observation]] = {}
    if reuse and (out / corpus.PLAN_CASES).exists():
        shown = corpus.load_screens(out)
        earlier = {
            (c.template, c.seed): (c.instruction, shown[c.case_id])
            for c in corpus.load_plan_cases(out)
        }
    drawn = draw_miniwob(tasks, seeds, earlier)
    slots = said_fields(traces, edges, templates)
    print(f"fields the demonstrations put in: {sorted(slots.items())}")
    cases = []
    for (task, seed), (instruction, _) in drawn.items():
        fields = utterance_fields(task, instruction)
        apps = collections.Counter(t.apps for t in traces if templates[t.episode_id] == task)
        cases.append(corpus.PlanCase(
            f"miniwob:{task}@{seed}", "miniwob:dev", instruction, task, seed,
            {k: v for k, v in fields.items() if k in slots.get(task, {}) and (
                not slots[task][k] or countable(v))},
            apps.most_common(1)[0][0], ((task,),),
        ))  # fmt: skip
    screens = [corpus.screen_line(c.case_id, drawn[c.template, c.seed][1]) for c in cases]
    (out / corpus.SCREENS_FILE).write_text("".join(line + "\n" for line in screens))
    cases, _ = judge_and_write(out, cases, templates, label, "MiniWoB++")
    summary = run / "graph" / "summary.json"
    if summary.exists():
        cross_check_tasks(cases, label, json.loads(summary.read_text())["per_task"])


def demonstrated_tasks(logs: Path, traces: Sequence[Trace]) -> dict[str, str]:
    """Recorded episode -> the MiniWoB++ task it demonstrates (its annotation's meta task)."""
    from guigraph.envs.web import miniwob

    found = {}
    for path in sorted((logs / "annotations").glob("*.json")):
        info = json.loads(path.read_text())
        found[str(info["episode_id"])] = miniwob.name_of(str(info["task_info"]["meta_task"]))
    unknown = [t.episode_id for t in traces if t.episode_id not in found]
    if unknown:
        raise SystemExit(f"recorded runs without an annotation in {logs}: {unknown[:3]}")
    return {t.episode_id: found[t.episode_id] for t in traces}


def draw_miniwob(
    tasks: Sequence[str], seeds: Sequence[int], earlier: dict[tuple[str, int], tuple[str, Any]]
) -> dict[tuple[str, int], tuple[str, Observation]]:
    """(task, seed) -> the instruction the task's page writes for that seed and the screen
    the episode starts on, as an episode gets them (``WebEnv.make_task`` and ``reset``: the
    miniwob package's page in headless Chromium); those in ``earlier`` are taken from it. A
    development seed, never an evaluation's."""
    from guigraph.eval.world_demo import EVAL_SEED_BASE, load_suite

    assert all(DEV_SEED_BASE <= seed < EVAL_SEED_BASE for seed in seeds)
    todo = [(task, seed) for task in tasks for seed in seeds]
    drawn = {key: earlier[key] for key in todo if key in earlier}
    missing = [key for key in todo if key not in drawn]
    if missing:
        suite = load_suite("web")
        env = make("web")
        try:
            for number, (task, seed) in enumerate(missing, 1):
                made = env.make_task(suite.task_spec(task), seed)
                drawn[task, seed] = (made.instruction, env.reset(made, seed))
                print(f"  drew {number}/{len(missing)} {task}@{seed}", flush=True)
        finally:
            env.close()
    return {key: drawn[key] for key in todo}


def utterance_fields(task: str, instruction: str) -> dict[str, str]:
    """The utterance's fields as the miniwob package reads them (its field extractors);
    none for a task it has none for, or an utterance its pattern does not match."""
    from miniwob.fields import get_field_extractor

    try:
        return {str(k): str(v) for k, v in get_field_extractor(task)(instruction)}
    except (KeyError, ValueError):
        return {}


def countable(value: str) -> bool:
    """Whether ``value`` can show as taps of one control in a row: not a whole number too
    small for that ("0", "1": no tap, or one like any other)."""
    count = corpus.whole_number(value)
    return count is None or count >= corpus.MIN_REPEATS


def said_fields(
    traces: Sequence[Trace], edges: dict[int, Edge], templates: dict[str, str]
) -> dict[str, dict[str, bool]]:
    """Task -> the fields a plan fills, each with whether it is a count: those every
    demonstration whose utterance has the field put in (a label it tapped, a text it typed, or
    only as that many taps of one control in a row: a count). The others are read off the
    page or are not a step (a date's month, reached by the calendar's arrows). A number too
    small to show as taps in a row shows nothing either way where it is not put in."""
    said: dict[str, dict[str, tuple[bool, bool]]] = {}
    for trace in traces:
        task = templates[trace.episode_id]
        done = corpus.trace_signature(trace, edges)
        for key, value in utterance_fields(task, trace.instruction).items():
            used, counted = done.uses(value), done.counts(value)
            if not (used or countable(value)):
                continue
            all_used, all_counted = said.setdefault(task, {}).get(key, (True, True))
            said[task][key] = (all_used and used, all_counted and (counted or not used))
    return {
        task: {key: counted for key, (used, counted) in keys.items() if used}
        for task, keys in said.items()
    }


def cross_check_tasks(
    cases: Sequence[corpus.PlanCase], label: str, per_task: dict[str, dict[str, Any]]
) -> None:
    """Each task's share of held cases beside the run's graph-memory SR on its evaluation
    seeds (only the rate: no evaluation seed is a case), where they disagree."""
    shares: dict[str, list[bool]] = {}
    for case in cases:
        shares.setdefault(case.template, []).append(case.held[label])
    for task, held in sorted(shares.items()):
        share, sr = sum(held) / len(held), float(per_task.get(task, {}).get("sr", 0.0))
        if abs(share - sr) >= 0.5:
            print(f"  {task}: {sum(held)}/{len(held)} cases held, graph SR {sr:.2f} in the run")


def _kbs(specs: Sequence[str], corpus_folder: Path) -> list[tuple[Path, Path, str, str]]:
    """(KB, templates folder, label, skin) per ``FOLDER[:LABEL[:SKIN]]``; the label defaults
    to the corpus folder's own KB's."""
    found = []
    for spec in specs or [str(corpus_folder)]:
        folder, _, rest = spec.partition(":")
        label, _, skin = rest.partition(":")
        root = Path(folder)
        kb = root / corpus.KB_FOLDER
        logs = root / "logs" if (root / "logs").exists() else root
        label = label or corpus.load_world(corpus_folder).label
        found.append((kb, logs, label, skin or "standard"))
    return found


def _templates(logs: Path, kb_path: Path, world: str) -> dict[str, str]:
    """Episode -> template: a corpus folder's table, a demo's truth documents, or for another
    DokuWiki or desktop run's KB its recorded runs named by their instructions."""
    found = corpus.load_templates(logs)
    if not found and world == "desktop":
        with KnowledgeBase.open(kb_path) as kb:
            return desktop_workflows(kb.traces())
    if found or world != "dokuwiki":
        return found
    with KnowledgeBase.open(kb_path) as kb:
        return recorded_workflows(kb.traces(), taskfile.load(TASKS))


def run_cases(args: argparse.Namespace) -> None:
    plan_cases = corpus.load_plan_cases(args.corpus)
    if args.only:
        plan_cases = [c for c in plan_cases if any(o in c.case_id for o in args.only)]
    for kb_path, logs, label, skin in _kbs(args.kb, args.corpus):
        started = time.perf_counter()
        templates = _templates(logs, kb_path, corpus.load_world(args.corpus).world)
        outcomes = corpus.run_on_kb(args.corpus, plan_cases, kb_path, templates, label, skin)
        report(f"{kb_path} ({label})", outcomes, args.failures, time.perf_counter() - started)
        if args.record:
            record(args.corpus, plan_cases, outcomes, label)
    if (args.corpus / corpus.SLOT_CASES).exists():
        slot_outcomes = corpus.run_slot_cases(corpus.load_slot_cases(args.corpus))
        report("slot cases", slot_outcomes, args.failures, 0.0)


def report(title: str, outcomes: list[corpus.Outcome], failures: bool, seconds: float) -> None:
    passed = sum(o.passed for o in outcomes)
    held = sum(o.held for o in outcomes)
    print(f"{title}: {passed}/{len(outcomes)} pass (recorded {held}) {seconds:.1f} s")
    for outcome in corpus.lost(outcomes):
        print(f"  LOST   {outcome.case_id}: {outcome.why}")
    for outcome in corpus.gained(outcomes):
        print(f"  gained {outcome.case_id}")
    for outcome in outcomes if failures else ():
        if not outcome.passed and not outcome.held:
            print(f"  fails  {outcome.case_id}: {outcome.why}")


def record(
    folder: Path, cases: list[corpus.PlanCase], outcomes: list[corpus.Outcome], label: str
) -> None:
    """Write the outcomes on ``label``'s KB as what the corpus holds there."""
    passed = {o.case_id: o.passed for o in outcomes}
    every = corpus.load_plan_cases(folder)
    written = [
        replace(c, held={**c.held, label: passed[c.case_id]}) if c.case_id in passed else c
        for c in every
    ]
    (folder / corpus.PLAN_CASES).write_text("".join(corpus.to_line(c) + "\n" for c in written))
    print(f"recorded {len(passed)} outcomes as {label!r} in {folder / corpus.PLAN_CASES}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="judge the corpus on knowledge bases")
    run.add_argument("corpus", type=Path, help="the corpus folder (tests/golden)")
    run.add_argument("--kb", nargs="*", default=[], help="FOLDER[:LABEL[:SKIN]] ...")
    run.add_argument("--only", nargs="*", default=[], help="case ids containing any of these")
    run.add_argument("--failures", action="store_true")
    run.add_argument("--record", action="store_true", help="write the outcomes as held")
    write = sub.add_parser("make", help="write the plan cases from a demo folder")
    write.add_argument("folder", type=Path, help="a demo folder that ran eval generalize")
    write.add_argument("out", type=Path, help="the corpus folder")
    seen = sub.add_parser("add-seen", help="add the demo's seen cases, cased and lower-cased")
    seen.add_argument("corpus", type=Path, help="the corpus folder (tests/golden)")
    wiki = sub.add_parser("make-dokuwiki", help="write DokuWiki's cases from a bench run")
    wiki.add_argument("run", type=Path, help="a bench/dokuwiki.py --out folder (kb/)")
    wiki.add_argument("out", type=Path, help="the corpus folder (tests/golden/dokuwiki)")
    wiki.add_argument("--label", required=True, help="the KB's label for held (wiki6)")
    desk = sub.add_parser("make-desktop", help="write the desktop's cases from a bench run")
    desk.add_argument("run", type=Path, help="a bench/desktop.py --out folder (kb/)")
    desk.add_argument("out", type=Path, help="the corpus folder (tests/golden/desktop)")
    desk.add_argument("--label", required=True, help="the KB's label for held (desk9)")
    wob = sub.add_parser("make-miniwob", help="write MiniWoB++'s cases from a bench run")
    wob.add_argument("run", type=Path, help="a bench/eval_web.py --out folder (demo/kb)")
    wob.add_argument("out", type=Path, help="the corpus folder (tests/golden/miniwob)")
    wob.add_argument("--label", required=True, help="the KB's label for held (final7)")
    wob.add_argument("--per-task", type=int, default=MINIWOB_CASES, help="cases per task")
    wob.add_argument("--reuse", action="store_true", help="the instructions already in OUT")
    args = parser.parse_args()
    if args.command == "make-desktop":
        make_desktop(args.run, args.out, args.label)
    elif args.command == "make-miniwob":
        make_miniwob(args.run, args.out, args.label, args.per_task, args.reuse)
    elif args.command == "make":
        make_cases(args.folder, args.out)
    elif args.command == "make-dokuwiki":
        make_dokuwiki(args.run, args.out, args.label)
    elif args.command == "add-seen":
        add_seen(args.corpus)
    else:
        run_cases(args)


if __name__ == "__main__":
    main()
