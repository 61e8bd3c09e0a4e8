"""The demo on a world other than SimPhone: record demonstrations, build the graph, evaluate.

A world that ships a task suite (``WORLD_SUITES``: a module with ``SUITE``, the task names, and
``demonstrate(env, name, seed)``, a scripted person) gets the SimPhone demo's protocol: at most
``demos`` recorded demonstrations per task through :class:`RecordEpisodes`, a knowledge base
built from them by the code ``guigraph build`` runs, then a fresh model-free team on new seeds
of every task with the workflow graph, the trace baseline and no graph. Success is the world's
own verdict (``Env.evaluate``). Each finished case is one line of ``results.jsonl``, so a
killed run resumes where it stopped.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from guigraph.choices import Memory
from guigraph.errors import ConfigError

if TYPE_CHECKING:
    from guigraph.envs.base import Env

#: World name -> the module that holds its demo suite: ``SUITE`` (task names),
#: ``task_spec(name)`` (what ``Env.make_task`` takes) and ``demonstrate(env, name, seed)``;
#: optionally ``EXPERTS`` (every task with a demonstrator), ``resolve_tasks(spec)`` (a named
#: task set or a list: its label and tasks) and ``why_not_demonstrated(name)``.
WORLD_SUITES = {"web": "guigraph.envs.web.experts"}
#: The team's memories, and "none": the same team with no knowledge base at all.
NO_MEMORY = "none"
MEMORIES = (*Memory, NO_MEMORY)
DEMO_SEED_BASE = 0
EVAL_SEED_BASE = 1_000_000
#: Development seeds (the golden corpus's MiniWoB++ cases, ``bench/corpus.py make-miniwob``):
#: above every demonstration's (at most 10 per task) and below every evaluation's, so a case
#: is never a seed the reported figure is measured on, however many seeds it runs.
DEV_SEED_BASE = 500_000
RESULTS = "results.jsonl"


class Reporter(Protocol):
    def stage(self, description: str, total: int, done: int = 0) -> Callable[[], None]: ...

    def note(self, text: str) -> None: ...


class _Quiet:
    def stage(self, description: str, total: int, done: int = 0) -> Callable[[], None]:
        return lambda: None

    def note(self, text: str) -> None:
        return None


@dataclass(frozen=True)
class WorldDemoConfig:
    world: str = "web"
    demos: int = 10
    seeds: int = 20
    tasks: tuple[str, ...] = ()  # empty: the whole suite (or ``task_set``)
    #: A named task set or a comma-separated list, as the world's ``resolve_tasks`` reads it:
    #: every task of it is in the report, one without a demonstrator at SR 0.
    task_set: str = ""
    memories: tuple[str, ...] = MEMORIES
    max_steps: int = 20
    env_options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 1 <= self.demos <= 10:
            raise ConfigError(f"demonstrations per task must be 1..10, got {self.demos}")
        if self.seeds < 1:
            raise ConfigError(f"evaluation seeds per task must be >= 1, got {self.seeds}")
        unknown = set(self.memories) - set(MEMORIES)
        if unknown:
            raise ConfigError(f"unknown memories {sorted(unknown)} (choose from {MEMORIES})")


def load_suite(world: str) -> Any:
    target = WORLD_SUITES.get(world)
    if target is None:
        raise ConfigError(
            f"world {world!r} has no demo suite (worlds with one: {', '.join(WORLD_SUITES)})"
        )
    return importlib.import_module(target)


def chosen_tasks(suite: Any, config: WorldDemoConfig) -> tuple[str, list[str]]:
    """The label of what was chosen and its tasks (every one counts in the means)."""
    if config.task_set:
        if not hasattr(suite, "resolve_tasks"):
            raise ConfigError(f"world {config.world!r} has no named task sets")
        label, tasks = suite.resolve_tasks(config.task_set)
        return str(label), list(tasks)
    names = list(_demonstrable(suite))
    if not config.tasks:
        return "suite", list(suite.SUITE)
    unknown = [t for t in config.tasks if t not in names]
    if unknown:
        raise ConfigError(
            f"no demonstrator for: {', '.join(unknown)} (tasks with one: {', '.join(names)})"
        )
    return "list", list(config.tasks)


def _demonstrable(suite: Any) -> Sequence[str]:
    return tuple(getattr(suite, "EXPERTS", suite.SUITE))


def without_demonstrator(suite: Any, tasks: Sequence[str]) -> dict[str, str]:
    """Each task no scripted person can demonstrate, and why (it counts 0)."""
    known = set(_demonstrable(suite))
    why = getattr(suite, "why_not_demonstrated", lambda name: "no demonstrator")
    return {task: str(why(task)) for task in tasks if task not in known}


def run_world_demo(
    out: Path, config: WorldDemoConfig, reporter: Reporter | None = None
) -> dict[str, Any]:
    """Record, build, evaluate into ``out``; the report (see :func:`summarize`)."""
    from guigraph.envs import make

    report = reporter or _Quiet()
    suite = load_suite(config.world)
    label, chosen = chosen_tasks(suite, config)
    missing = without_demonstrator(suite, chosen)
    tasks = [task for task in chosen if task not in missing]
    _claim_folder(out, config, report)
    started = time.perf_counter()
    env = make(config.world, **config.env_options)
    try:
        recorded = _record(env, suite, tasks, config, out / "logs", report)
        kb_stats = _build(out / "logs", out / "kb", report)
        rows = _evaluate(env, suite, tasks, config, out, report)
    finally:
        env.close()
    summary = summarize(rows, chosen, config.memories)
    summary["task_set"] = label
    summary["without_demonstrator"] = missing
    summary["setup"] = {
        "world": config.world,
        "demos_per_task": config.demos,
        "seeds_per_task": config.seeds,
        "recorded": recorded,
        "kb": kb_stats,
        "seconds": round(time.perf_counter() - started, 1),
    }
    return summary


def _claim_folder(out: Path, config: WorldDemoConfig, report: Reporter) -> None:
    """Start over when guigraph's code changed since the folder was made (its recordings,
    knowledge base and results would be another version's), and refuse a folder made for
    another world; the demo's other settings may change freely (results are keyed by case)."""
    import shutil

    from guigraph.eval.demo import code_fingerprint

    marker = out / "world_demo.json"
    code = code_fingerprint()
    if marker.is_file():
        found = json.loads(marker.read_text(encoding="utf-8"))
        if found.get("world") != config.world:
            raise ConfigError(
                f"{marker}: this folder holds the {found.get('world')!r} demo; use another --out"
            )
        if found.get("code") == code:
            return
        report.note(f"{out}: the guigraph code changed since this run; starting over")
        for part in ("logs", "kb"):
            shutil.rmtree(out / part, ignore_errors=True)
        (out / RESULTS).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"world": config.world, "code": code}) + "\n", encoding="utf-8")


def _record(
    env: Env, suite: Any, tasks: Sequence[str], config: WorldDemoConfig, logs: Path,
    report: Reporter,
) -> dict[str, int]:  # fmt: skip
    """Demonstrations through the recorder; ``recorded.json`` remembers which are on disk."""
    from guigraph.envs.wrappers import RecordEpisodes

    ledger_path = logs / "recorded.json"
    ledger: dict[str, bool] = (
        json.loads(ledger_path.read_text(encoding="utf-8")) if ledger_path.is_file() else {}
    )
    todo = [(t, DEMO_SEED_BASE + i) for t in tasks for i in range(config.demos)]
    advance = report.stage("recording demonstrations", len(todo), sum(
        f"{t}|{s}" in ledger for t, s in todo
    ))  # fmt: skip
    recorder = RecordEpisodes(env, logs)
    for name, seed in todo:
        key = f"{name}|{seed}"
        if key in ledger:
            continue
        try:
            _, verdict = suite.demonstrate(recorder, name, seed)
            ok = bool(verdict and verdict.success)
        except Exception as exc:  # a failed demonstration is reported, never fatal
            report.note(f"demonstration {name} seed {seed} failed: {exc}")
            ok = False
        if not ok:
            # A demonstration that broke off is not written; one the page scored as failed
            # (the episode had ended) is written, and reported as failed.
            recorder.discard()
        ledger[key] = ok
        logs.mkdir(parents=True, exist_ok=True)
        ledger_path.write_text(json.dumps(ledger, indent=0), encoding="utf-8")
        advance()
    return {
        "episodes": sum(ledger.get(f"{t}|{s}", False) for t, s in todo),
        "failed": sum(not ledger.get(f"{t}|{s}", False) for t, s in todo),
    }


def _build(logs: Path, kb_dir: Path, report: Reporter) -> dict[str, Any]:
    from guigraph.graph.from_logs import build_from_logs

    advance = report.stage("building the graph", 1)
    _, stats = build_from_logs(logs, kb_dir)
    advance()
    return stats


def case_key(task: str, memory: str, seed: int) -> str:
    return f"{task}|{memory}|{seed}"


def _evaluate(
    env: Env, suite: Any, tasks: Sequence[str], config: WorldDemoConfig, out: Path,
    report: Reporter,
) -> list[dict[str, Any]]:  # fmt: skip
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase

    path = out / RESULTS
    rows = _read_rows(path)
    done = {row["key"] for row in rows}
    cases = [
        (task, memory, EVAL_SEED_BASE + i)
        for task in tasks
        for memory in config.memories
        for i in range(config.seeds)
    ]
    advance = report.stage("evaluating the team", len(cases), sum(
        case_key(*c) in done for c in cases
    ))  # fmt: skip
    todo = [c for c in cases if case_key(*c) not in done]
    if not todo:
        return rows
    with KnowledgeBase.open(out / "kb") as kb:
        view = GraphView.load(kb)
        with path.open("a", encoding="utf-8") as sink:
            for task, memory, seed in todo:
                spec = suite.task_spec(task)
                row = run_world_case(env, kb, view, spec, memory, seed, config.max_steps, task)
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                rows.append(row)
                advance()
    return rows


def run_world_case(
    env: Env, kb: Any, view: Any, spec: str, memory: str, seed: int, max_steps: int,
    name: str = "",
) -> dict[str, Any]:  # fmt: skip
    """One episode of a fresh model-free team on the world's task ``spec``; the world's
    verdict decides success. ``name`` is the task's name in the results (default: spec)."""
    name = name or spec
    from guigraph.agents.loop import Budget, run_episode
    from guigraph.agents.team import TeamOptions, rule_team

    use_graph = memory != NO_MEMORY
    options = TeamOptions(memory=Memory(memory) if use_graph else Memory.GRAPH, use_graph=use_graph)
    team = rule_team(kb if use_graph else None, view if use_graph else None, options)
    error = ""
    try:
        task = env.make_task(spec, seed)
        result = run_episode(env, team, task, seed=seed, budget=Budget(max_steps=max_steps))
        verdict = env.evaluate()
        steps, reason, seconds = len(result.steps), result.reason, result.seconds
    except Exception as exc:  # a broken page counts as a failure of this case, not the run
        verdict, steps, reason, seconds, error = None, 0, "error", 0.0, str(exc)
    return {
        "key": case_key(name, memory, seed),
        "task": name,
        "memory": memory,
        "seed": seed,
        "success": bool(verdict and verdict.success),
        "reward": verdict.reward if verdict else None,
        "steps": steps,
        "reason": reason,
        "seconds": round(seconds, 3),
        "error": error,
    }


def _read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").split("\n"):  # not at U+2028 in a row
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by a kill: the case runs again
    return rows


def summarize(
    rows: Iterable[dict[str, Any]], tasks: Sequence[str], memories: Sequence[str] = MEMORIES
) -> dict[str, Any]:
    """``{"tasks": {task: {memory: {sr, episodes}}}, "mean_sr": {memory: sr}}``: the mean
    over every task of ``tasks``, one with no episode at SR 0."""
    grouped: dict[tuple[str, str], list[bool]] = {}
    for row in rows:
        grouped.setdefault((row["task"], row["memory"]), []).append(bool(row["success"]))
    per_task: dict[str, dict[str, dict[str, Any]]] = {}
    for task in tasks:
        per_task[task] = {}
        for memory in memories:
            wins = grouped.get((task, memory), [])
            per_task[task][memory] = {
                "sr": sum(wins) / len(wins) if wins else 0.0,
                "episodes": len(wins),
            }
    mean = {
        memory: (sum(per_task[t][memory]["sr"] for t in tasks) / len(tasks) if tasks else 0.0)
        for memory in memories
    }
    return {"tasks": per_task, "mean_sr": mean}
