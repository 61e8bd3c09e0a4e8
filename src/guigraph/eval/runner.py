"""``guigraph eval``: one evaluation into one run folder, resumable, at any concurrency.

``run_odyssey`` (GUIOdyssey teacher-forced replay of a split's test part, official matcher),
``run_sim`` (live SimPhone cases judged by the world's checker) and ``run_web`` (MiniWoB++
tasks in Chromium, judged by the page's reward; ``eval.web``) check what they can
before anything runs (the data, a KB built from test episodes, the model server), open the
run folder (resuming it), run the episodes not yet finished and write ``summary.json`` from
the folder's files, so a resumed run's summary covers every session.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guigraph.errors import ConfigError, DatasetError
from guigraph.eval.executors import EXECUTORS, execute
from guigraph.eval.runfolder import (
    EPISODES,
    SCHEMA_VERSION,
    STEPS,
    RunFolder,
    git_commit,
    now,
    read_jsonl,
)
from guigraph.eval.worker import EvalSpec, Job, Row, SimJob, WebJob, job_id

SPLITS = ("random", "task", "device", "app")


@dataclass(frozen=True)
class RunOptions:
    """How to run (none of it changes the numbers)."""

    concurrency: int = 1
    executor: str = "local"
    ray_address: str | None = None
    limit: int | None = None
    resume: bool = True

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ConfigError(f"--concurrency must be >= 1, got {self.concurrency}")
        if self.executor not in EXECUTORS:
            raise ConfigError(f"--executor must be one of {', '.join(EXECUTORS)}")


class Progress:
    """What a run reports while it goes (the CLI draws a bar; tests pass nothing)."""

    def start(self, total: int, done: Sequence[Row]) -> None:
        pass

    def episode(self, row: Row) -> None:
        pass


@dataclass
class EvalResult:
    folder: Path
    summary: dict[str, Any]
    ran: int
    skipped: int


def model_settings(model: str | None, base_url: str | None, concurrency: int,
                   **overrides: Any) -> dict[str, Any]:  # fmt: skip
    """The model's settings as saved (no key), checked against the server."""
    from guigraph.agents.factory import check_served
    from guigraph.llm.config import ModelConfig

    config = ModelConfig(model=model or "", base_url=base_url or "", max_concurrency=concurrency,
                         **overrides).resolved()  # fmt: skip
    check_served(config)
    return config.to_dict()


def run_odyssey(
    data: Path,
    spec: EvalSpec,
    out: Path,
    options: RunOptions,
    split: str = "random",
    progress: Progress | None = None,
) -> EvalResult:
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.eval.replay import check_kb_disjoint
    from guigraph.graph.kb import KnowledgeBase

    if split not in SPLITS:
        raise ConfigError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    dataset = OdysseyDataset(Path(data))
    if not dataset.split_path(split).is_file():
        raise DatasetError(dataset.split_path(split), None, "a split file with a test part")
    test_ids = dataset.episode_ids(split=split, part="test")
    if not test_ids:
        raise DatasetError(dataset.split_path(split), "test", "at least one episode", "none")
    with KnowledgeBase.open(spec.kb) as kb:
        # The whole test part, not only the --limit ones: such a KB is unfit for the split.
        check_kb_disjoint(kb, test_ids)
        kb_id = knowledge_base_id(kb)
    ids: list[Job] = longest_first(dataset, test_ids[: options.limit])
    config = {**spec.to_config(), "data": str(Path(data).resolve()), "split": split}
    return _run("odyssey", spec, ids, out, options, config, kb_id, {"loop": spec.seed}, progress)


def run_sim(
    jobs: Sequence[SimJob],
    spec: EvalSpec,
    out: Path,
    options: RunOptions,
    progress: Progress | None = None,
) -> EvalResult:
    from guigraph.graph.kb import KnowledgeBase

    with KnowledgeBase.open(spec.kb) as kb:
        kb_id = knowledge_base_id(kb)
    out = Path(out)
    spec = EvalSpec(**{**spec.__dict__, "screens": str((out / "screens").resolve())})
    chosen: list[Job] = list(jobs[: options.limit])
    config = {**spec.to_config(), "cases": [j.__dict__ for j in jobs]}
    config.pop("screens")
    seeds = {"loop": spec.seed, "cases": sorted({j.seed for j in jobs})}
    return _run("sim", spec, chosen, out, options, config, kb_id, seeds, progress)


def run_web(
    jobs: Sequence[WebJob],
    task_set: str,
    tasks: Sequence[str],
    spec: EvalSpec,
    out: Path,
    options: RunOptions,
    progress: Progress | None = None,
) -> EvalResult:
    """MiniWoB++ episodes (``eval.web.plan_jobs``); ``tasks`` is the named set the headline
    mean runs over, ``task_set`` its name (``list`` for named tasks)."""
    kb_id = ""
    if spec.kb:
        from guigraph.graph.kb import KnowledgeBase

        with KnowledgeBase.open(spec.kb) as kb:
            kb_id = knowledge_base_id(kb)
    chosen: list[Job] = list(jobs[: options.limit])
    config = {**spec.to_config(), "task_set": task_set, "tasks": list(tasks),
              "seeds_per_task": len({j.seed for j in jobs})}  # fmt: skip
    config.pop("screens")
    seeds = {"loop": spec.seed, "cases": sorted({j.seed for j in jobs})}
    return _run("web", spec, chosen, out, options, config, kb_id, seeds, progress)


def _run(
    suite: str,
    spec: EvalSpec,
    jobs: list[Job],
    out: Path,
    options: RunOptions,
    config: dict[str, Any],
    kb_id: str,
    seeds: dict[str, Any],
    progress: Progress | None,
) -> EvalResult:
    from guigraph import __version__

    progress = progress or Progress()
    started = now()
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "suite": suite,
        "config": {
            **config,
            "concurrency": options.concurrency,
            "executor": options.executor,
            "ray_address": options.ray_address,
            "limit": options.limit,
        },
        "guigraph_version": __version__,
        "git_commit": git_commit(),
        "kb_id": kb_id,
        "model": spec.model,
        "seeds": seeds,
        "started": started,
        "ended": None,
        "sessions": [{"started": started, "ended": None}],
    }
    folder = RunFolder.open(Path(out), manifest, resume=options.resume)
    todo = [j for j in jobs if job_id(j) not in folder.finished]
    progress.start(
        len(jobs), [folder.finished[i] for i in map(job_id, jobs) if i in folder.finished]
    )
    clock = time.perf_counter()
    execute(
        spec, todo, folder, executor=options.executor, concurrency=options.concurrency,
        ray_address=options.ray_address, on_episode=progress.episode,
    )  # fmt: skip
    summary = summarize_folder(folder.path, suite, folder.manifest["config"])
    summary["wall_seconds"] = round(time.perf_counter() - clock, 3)
    folder.end_session(summary)
    return EvalResult(folder.path, summary, ran=len(todo), skipped=len(jobs) - len(todo))


def longest_first(dataset: Any, ids: Sequence[str]) -> list[Job]:
    """The episodes, longest recording first: with many in flight, the last to finish are
    then short ones, so the run does not wait on a long straggler. (Order never changes the
    numbers: every episode is scored on its own.)"""
    lengths: dict[str, int] = {}
    for episode_id in ids:
        path = dataset.annotations / f"{episode_id}.json"
        try:
            lengths[episode_id] = len(json.loads(path.read_text(encoding="utf-8"))["steps"])
        except (OSError, ValueError, KeyError, TypeError):
            lengths[episode_id] = 0  # the worker's reader reports what is wrong with it
    ordered = sorted(ids, key=lambda i: -lengths[i])
    return list[Job](ordered)


def knowledge_base_id(kb: Any) -> str:
    """Names a KB by what it holds: its build settings and the episodes it was built from."""
    digest = hashlib.sha256(repr(sorted(kb.settings.to_dict().items())).encode())
    for (episode_id,) in kb.conn.execute("SELECT episode_id FROM traces ORDER BY episode_id"):
        digest.update(episode_id.encode() + b"\0")
    return digest.hexdigest()[:16]


# -- summary ------------------------------------------------------------------------------
def summarize_folder(
    path: Path, suite: str, config: dict[str, Any] | None = None
) -> dict[str, Any]:
    """summary.json of a run folder, from its files alone (every session counted once);
    ``config`` is the manifest's (the web suite reads its named set there)."""
    episodes = read_jsonl(Path(path) / EPISODES)
    summary: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "suite": suite}
    if suite == "odyssey":
        summary.update(_scores(Path(path) / STEPS))
    else:
        summary.update(_success_rates(episodes))
    if suite == "web":
        from guigraph.eval import web

        summary.update(web.summary(episodes, config or {}))
    summary["usage"], summary["faults"] = _usage_and_faults(episodes)
    grounded = [e["grounding"] for e in episodes if isinstance(e.get("grounding"), dict)]
    if grounded:  # MGA's team: what its grounding step placed and missed
        summary["grounding"] = {
            key: sum(int(g.get(key, 0)) for g in grounded) for key in ("tree", "model", "missed")
        }
    summary["seconds"] = round(sum(float(e.get("seconds") or 0) for e in episodes), 3)
    return summary


def _scores(steps: Path) -> dict[str, Any]:
    """The numbers ``guigraph score RUN/steps.jsonl`` prints (pooled), plus the category mean."""
    from guigraph.eval.metrics import summarize
    from guigraph.eval.steps import read_steps, score_records

    records = read_steps(steps)
    scored = score_records(records, source=str(steps))
    pooled = summarize(scored, "pooled")
    mean = summarize(scored, "category-mean")
    return {
        "aggregate": "pooled",
        "mode": "official",
        "ams": pooled.ams,
        "sr": pooled.sr,
        "episodes": pooled.episodes,
        "steps": pooled.steps,
        "successes": pooled.successes,
        "category_mean": {"ams": mean.ams, "sr": mean.sr},
        "per_category": {
            name: {"ams": g.ams, "sr": g.sr, "episodes": g.episodes, "steps": g.steps}
            for name, g in pooled.per_category.items()
        },
        "action_type_accuracy": pooled.action_type_accuracy,
        "unpredicted_steps": sum(r.pred == "NO_PREDICTION" for r in records),
        "incomplete_episodes": [e.episode_id for e in pooled.incomplete_episodes],
    }


def _rate(rows: Sequence[Row]) -> float:
    return round(100 * sum(bool(r.get("success")) for r in rows) / len(rows), 2) if rows else 0.0


def _success_rates(episodes: Sequence[Row]) -> dict[str, Any]:
    by_category: dict[str, list[Row]] = {}
    for row in episodes:
        by_category.setdefault(str(row.get("category", "")), []).append(row)
    return {
        "ams": None,
        "sr": _rate(episodes),
        "episodes": len(episodes),
        "steps": sum(int(r.get("steps") or 0) for r in episodes),
        "successes": sum(bool(r.get("success")) for r in episodes),
        "per_category": {
            name: {"ams": None, "sr": _rate(rows), "episodes": len(rows)}
            for name, rows in sorted(by_category.items())
        },
    }


def _usage_and_faults(episodes: Sequence[Row]) -> tuple[dict[str, Any], dict[str, Any]]:
    by_role: dict[str, dict[str, float]] = {}
    faults: dict[str, dict[str, int]] = {}
    for row in episodes:
        for role, usage in (row.get("usage") or {}).items():
            into = by_role.setdefault(role, {})
            for key, value in usage.items():
                into[key] = into.get(key, 0) + value
        for role, counts in (row.get("faults") or {}).items():
            into_faults = faults.setdefault(role, {"retried": 0, "given_up": 0, "unparseable": 0})
            for key, value in counts.items():
                into_faults[key] = into_faults.get(key, 0) + int(value)
    total: dict[str, float] = {}
    for usage in by_role.values():
        for key, value in usage.items():
            total[key] = total.get(key, 0) + value
    if "cost_usd" in total:
        total["cost_usd"] = round(total["cost_usd"], 6)
    usage_out: dict[str, Any] = {
        "calls": int(total.get("calls", 0)),
        "prompt_tokens": int(total.get("prompt_tokens", 0)),
        "completion_tokens": int(total.get("completion_tokens", 0)),
        "cost_usd": total.get("cost_usd", 0.0),
        "by_role": dict(sorted(by_role.items())),
    }
    return usage_out, dict(sorted(faults.items()))
