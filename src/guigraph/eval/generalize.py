"""``guigraph eval generalize``: the generalization benchmark on the demo's knowledge base.

Runs a team (the model-free one by default; policy ``model`` or ``hybrid`` asks a model
server), with the workflow graph and with the trace baseline, on one half of the benchmark
(``guigraph.envs.simphone.generalize``): recorded templates asked in new words, the same tasks
in their recorded wording, and new pairings of recorded workflows. Success is SimPhone's
checker. The KB is the demo's (same logs settings, same code: ``prepare_kb``), so ``--out``
may be a demo folder; results go to ``generalize-<half>.jsonl`` there, one line per finished
episode (a model policy's keyed by it), and a run resumes like the demo. A model policy's
calls are written to ``usage/`` as they complete.

The frozen half is for the reported figures only: the runner refuses it unless asked
explicitly, and notes every frozen run in ``frozen-runs.jsonl`` (kept across code changes), so
the folder shows how often it was looked at.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.choices import Policy, SlotFilling, Verify
from guigraph.envs.simphone.generalize import (
    Benchmark,
    Half,
    Item,
    Kind,
    item_task,
    packaged,
    recorded_item,
)
from guigraph.errors import ConfigError
from guigraph.eval.demo import (
    DEMO_LOCK,
    DemoConfig,
    Reporter,
    SilentReporter,
    code_fingerprint,
    load_results,
    prepare_kb,
)
from guigraph.eval.suite import MEMORIES, eval_seeds

if TYPE_CHECKING:
    from guigraph.agents.loop import Team
    from guigraph.compiler.fillers import FillerCounts
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase

RESULTS = "generalize-{half}.jsonl"
FROZEN_LOG = "frozen-runs.jsonl"
KINDS = (Kind.REWORDED, Kind.RECORDED, Kind.PAIRING)


@dataclass(frozen=True)
class GeneralizeConfig:
    demo: DemoConfig = field(default_factory=DemoConfig)
    half: Half = Half.DEV
    #: Worlds per reworded wording (its recorded wording runs on the same ones).
    reworded_seeds: int = 2
    #: Worlds per pairing wording.
    pairing_seeds: int = 3
    #: Who acts: ``graph`` (the model-free team) or a model policy (``model``, ``hybrid``).
    policy: Policy = Policy.GRAPH
    #: The model's settings as saved (``ModelConfig.to_dict``: no key), for a model policy.
    model: dict[str, Any] | None = None
    #: The model team's verifier (``always``, ``adaptive``, ``never``).
    verify: Verify = Verify.ALWAYS
    #: The memories to run (both by default: the graph and the trace baseline).
    memories: tuple[str, ...] = MEMORIES
    #: Who fills the model-free team's slots: the typed rules, or the model of ``model``.
    slot_filler: SlotFilling = SlotFilling.RULE

    @property
    def asks_a_model(self) -> bool:
        return self.policy != Policy.GRAPH or self.slot_filler == SlotFilling.MODEL


@dataclass(frozen=True)
class GeneralizeCase:
    half: Half
    kind: Kind
    memory: str
    item_id: str
    seed: int
    policy: Policy = Policy.GRAPH
    slot_filler: SlotFilling = SlotFilling.RULE

    @property
    def key(self) -> str:
        # The model-free team's keys predate model policies: its folders resume as they are.
        case = f"{self.half}|{self.kind}|{self.memory}|{self.item_id}|{self.seed}"
        if self.slot_filler == SlotFilling.MODEL:
            case = f"model-filler|{case}"
        return case if self.policy == Policy.GRAPH else f"{self.policy}|{case}"


def plan(items: Sequence[Item], half: Half, config: GeneralizeConfig, used_seeds: set[int]
         ) -> tuple[list[GeneralizeCase], dict[str, Item]]:  # fmt: skip
    """The half's cases: every wording on its worlds, and each reworded template's recorded
    wording on the same worlds; with both memories."""
    reworded_worlds = eval_seeds("reworded", config.reworded_seeds, used_seeds)
    pairing_worlds = eval_seeds("pairing", config.pairing_seeds, used_seeds)
    by_id: dict[str, Item] = {}
    runs: list[tuple[Item, list[int]]] = []
    for item in items:
        worlds = pairing_worlds if item.kind is Kind.PAIRING else reworded_worlds
        runs.append((item, worlds))
        if item.kind is Kind.REWORDED:
            recorded = recorded_item(item.template_id)
            if recorded.item_id not in by_id:
                runs.append((recorded, reworded_worlds))
                by_id[recorded.item_id] = recorded
        by_id[item.item_id] = item
    cases = [
        GeneralizeCase(
            half, item.kind, memory, item.item_id, seed, config.policy, config.slot_filler
        )
        for memory in config.memories
        for item, worlds in runs
        for seed in worlds
    ]
    return cases, by_id


def run_generalize(
    out: Path, config: GeneralizeConfig, reporter: Reporter | None = None, *,
    allow_frozen: bool = False, benchmark: Benchmark | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Run (or resume) one half of ``benchmark`` (default: the packaged one) in ``out``; the
    frozen half only with ``allow_frozen``."""
    from guigraph.compiler.fillers import FillerCounts
    from guigraph.locks import folder_lock

    if config.half is Half.FROZEN and not allow_frozen:
        raise ConfigError(
            "the frozen half is run once, for the reported figures; fixes are guided by the "
            "development half (the default). Pass --frozen to run the frozen half."
        )
    reporter = reporter or SilentReporter()
    out = Path(out)
    started = time.perf_counter()
    with folder_lock(out, DEMO_LOCK, "another demo or benchmark is running in this folder"):
        used_seeds, kb_stats = prepare_kb(out, config.demo, reporter)
        if config.half is Half.FROZEN:
            _note_frozen_run(out)
        benchmark = benchmark or packaged()
        cases, items = plan(benchmark.half(config.half), config.half, config, used_seeds)
        usage = _usage_path(out, config) if config.asks_a_model else None
        filled = FillerCounts()
        rows = run_cases(
            out / RESULTS.format(half=config.half), out / "kb", cases, items, config, reporter,
            usage_path=usage, filler_counts=filled,
        )  # fmt: skip
    failed = failures(rows)
    return {
        "half": str(config.half),
        "policy": config.policy,
        **(_model_report(config, usage) if usage is not None else {}),
        "slot_filler": {"filler": str(config.slot_filler), **filled.to_dict()},
        **summarize(rows),
        # The frozen half's cases are not shown: whoever reads the report would be reading the
        # evaluation half, and the next fix would be tuned to it. The rows stay in the folder.
        "failures": failed if config.half is Half.DEV else [],
        "failures_count": len(failed),
        "setup": {
            "benchmark": benchmark.source,
            "items": _count_items(items.values()),
            "worlds_per_wording": {
                "reworded": config.reworded_seeds,
                "pairing": config.pairing_seeds,
            },
            "logs_episodes": config.demo.episodes,
            "logs_seed": config.demo.seed,
            "skin": config.demo.skin,
            "encoder": config.demo.encoder,
            "kb": kb_stats,
            "frozen_runs": len(load_results(out / FROZEN_LOG)),
            "seconds": round(time.perf_counter() - started, 1),
        },
    }


def _usage_path(out: Path, config: GeneralizeConfig) -> Path:
    """This run's usage file: one per run (a resumed run's calls are its own), rewritten after
    every call so that a killed run keeps it."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    name = f"generalize-{config.half}-{config.policy}-{stamp}"
    path, n = out / "usage" / f"{name}.json", 1
    # A run resumed within the second of the last one is still another run: it must neither
    # report that run's calls as its own nor write over them.
    while path.exists():
        n += 1
        path = out / "usage" / f"{name}-{n}.json"
    return path


def _model_report(config: GeneralizeConfig, usage: Path) -> dict[str, Any]:
    """The model the run asked (no key) and the calls this run made."""
    model = config.model or {}
    # A run with nothing left to do made no call and wrote no file.
    totals = json.loads(usage.read_text())["run"] if usage.is_file() else {"calls": 0}
    return {
        "model": {k: model.get(k) for k in ("model", "base_url", "vision")},
        "usage": {"file": str(usage), **totals},
    }


def _note_frozen_run(out: Path) -> None:
    entry = {"at": datetime.now(UTC).isoformat(timespec="seconds"), "code": code_fingerprint()}
    with (out / FROZEN_LOG).open("a") as sink:
        sink.write(json.dumps(entry) + "\n")


def _count_items(items: Iterable[Item]) -> dict[str, int]:
    counts = {str(kind): 0 for kind in KINDS}
    for item in items:
        counts[str(item.kind)] += 1
    return counts


def run_cases(
    path: Path, kb_dir: Path, cases: list[GeneralizeCase], items: dict[str, Item],
    config: GeneralizeConfig, reporter: Reporter, *, usage_path: Path | None = None,
    filler_counts: FillerCounts | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """Run ``cases`` (from ``plan``) on the KB in ``kb_dir``, appending one row per finished
    episode to ``path`` and skipping those already there; returns the rows of ``cases``.
    A model policy's calls go to ``usage_path``; a model slot filler's add up in
    ``filler_counts``.

    The KB is a parameter so that the same cases can be run on KBs built otherwise from the
    same logs (``bench/generalize_encoders.py``: one KB per sentence encoder)."""
    from guigraph.compiler.index import GraphView
    from guigraph.eval.suite import run_task
    from guigraph.graph.kb import KnowledgeBase

    rows = load_results(path)
    done = {row["key"] for row in rows}
    demo = config.demo
    with ExitStack() as resources:
        kb = resources.enter_context(KnowledgeBase.open(kb_dir))
        sink = resources.enter_context(path.open("a"))
        view = GraphView.load(kb)
        team_for = _team_maker(config, (kb, view), resources, usage_path, filler_counts)
        for memory in config.memories:
            group = [case for case in cases if case.memory == memory]
            advance = reporter.stage(
                f"{config.half} half · {memory}", len(group), sum(c.key in done for c in group)
            )
            for case in group:
                if case.key in done:
                    continue
                item = items[case.item_id]
                task = item_task(item, case.seed)
                team = team_for(memory) if team_for is not None else None
                outcome = run_task(task, case.seed, memory, kb, view, demo.max_steps,
                                   device=demo.device, skin=demo.skin, team=team)  # fmt: skip
                row = {"key": case.key, **asdict(case), "template_id": item.template_id,
                       "instruction": task.instruction, "device": demo.device,
                       "skin": demo.skin, **outcome}  # fmt: skip
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                rows.append(row)
                advance()
    # A results file may hold cases of another plan (other sizes, another benchmark file).
    planned = {case.key for case in cases}
    return [row for row in rows if row["key"] in planned]


def _team_maker(
    config: GeneralizeConfig, graph: tuple[KnowledgeBase, GraphView], resources: ExitStack,
    usage_path: Path | None, filler_counts: FillerCounts | None,
) -> Callable[[str], Team] | None:  # fmt: skip
    """A fresh team per episode (one model hub for the run) where a model is asked: the model
    team, or the model-free team with the model filling its slots; None for the model-free
    team, which ``run_task`` makes itself."""
    if not config.asks_a_model:
        return None
    from guigraph.agents.factory import model_fillers
    from guigraph.agents.model_team import ModelTeamOptions, model_team
    from guigraph.agents.team import TeamOptions, rule_team
    from guigraph.choices import Memory
    from guigraph.llm.config import ModelConfig, RoleModels
    from guigraph.llm.hub import ModelHub

    if not config.model:
        who = (
            f"--policy {config.policy}" if config.policy != Policy.GRAPH else "--slot-filler model"
        )
        raise ConfigError(f"{who} needs a model (--model, --base-url)")
    kb, view = graph
    models = RoleModels(default=ModelConfig.from_dict(config.model).resolved())
    hub = resources.enter_context(ModelHub(models, usage_path=usage_path))
    if config.policy == Policy.GRAPH:
        make_filler = model_fillers(kb, hub.client("slot_filler"), filler_counts)
        return lambda memory: rule_team(kb, view, TeamOptions(memory=Memory(memory)), make_filler())
    return lambda memory: model_team(
        kb, view, hub,
        ModelTeamOptions(policy=config.policy, verify=config.verify, memory=Memory(memory)),
    )  # fmt: skip


def summarize(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """``{kind: {memory: {sr, episodes, successes}}}`` for the three kinds."""
    grouped: dict[tuple[str, str], list[bool]] = {}
    for row in rows:
        grouped.setdefault((row["kind"], row["memory"]), []).append(bool(row["success"]))
    summary: dict[str, dict[str, dict[str, Any]]] = {}
    for kind in KINDS:
        summary[str(kind)] = {}
        for memory in MEMORIES:
            outcomes = grouped.get((str(kind), memory), [])
            wins = sum(outcomes)
            summary[str(kind)][memory] = {
                "sr": round(wins / len(outcomes), 4) if outcomes else 0.0,
                "episodes": len(outcomes),
                "successes": wins,
            }
    return summary


def failures(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The graph memory's failed episodes: what to read when classifying (the trace
    baseline's failures on pairings are expected)."""
    return [
        {k: row[k] for k in ("kind", "item_id", "seed", "instruction", "reason", "steps")}
        for row in rows
        if row["memory"] == "graph" and not row["success"]
    ]
