"""SimPhone evaluation cases: which instances to run, running one, and SR per category.

A case is one (condition, memory, template, seed, device) episode run by a fresh model-free
team; its result is a plain dict (one line of ``results.jsonl``) so that a summary can be
recomputed from the file alone. Success is read from the world's checker after the episode —
the team never sees it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from guigraph.choices import Memory

if TYPE_CHECKING:
    from guigraph.agents.loop import Team
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.types import Task

#: The demo's three conditions, in the order of its table and JSON.
CONDITIONS = ("seen", "unseen_templates", "other_device")
MEMORIES = tuple(Memory)

#: Evaluation seeds start far above the recorder's (``seed * 100_003 + index``) for any
#: sensible recording seed; seeds that the logs used anyway are skipped, never reused.
EVAL_SEED_BASE = 900_000_000
CONDITION_SEED_OFFSET = {
    "seen": 0,
    "unseen_templates": 10_000,
    "other_device": 20_000,
    # The generalization benchmark (``guigraph eval generalize``): the reworded tasks and
    # their recorded wording share seeds, so both are scored on the same worlds.
    "reworded": 30_000,
    "pairing": 40_000,
}


@dataclass(frozen=True)
class Sizes:
    """Instances per template in each condition."""

    seen: int = 3
    unseen_templates: int = 8
    other_device: int = 2

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if value < 1:
                raise ValueError(f"{name}: at least 1 instance per template, got {value}")


@dataclass(frozen=True)
class EvalCase:
    condition: str
    memory: str
    template_id: str
    seed: int
    device: str
    version: int = 1
    skin: str = "standard"

    @property
    def key(self) -> str:
        """Identifies the case in ``results.jsonl`` (the resume check)."""
        fields = (self.condition, self.memory, self.template_id, self.seed, self.device)
        skin = "" if self.skin == "standard" else f"|{self.skin}"
        return "|".join(map(str, fields)) + f"|v{self.version}{skin}"


def eval_seeds(condition: str, count: int, used: Collection[int]) -> list[int]:
    """``count`` seeds for ``condition`` that the logs did not use."""
    seeds: list[int] = []
    candidate = EVAL_SEED_BASE + CONDITION_SEED_OFFSET[condition]
    while len(seeds) < count:
        if candidate not in used:
            seeds.append(candidate)
        candidate += 1
    return seeds


def plan_cases(
    seen: Sequence[str],
    held_out: Sequence[str],
    sizes: Sizes,
    used_seeds: Collection[int],
    device: str,
    other_device: str,
    memories: Sequence[str] = MEMORIES,
    skin: str = "standard",
) -> list[EvalCase]:
    """Every case of the demo: seen templates (new seeds), held-out ones, another device."""
    groups = (
        ("seen", seen, sizes.seen, device),
        ("unseen_templates", held_out, sizes.unseen_templates, device),
        ("other_device", seen, sizes.other_device, other_device),
    )
    cases: list[EvalCase] = []
    for condition, templates, count, on_device in groups:
        seeds = eval_seeds(condition, count, used_seeds)
        for memory in memories:
            cases.extend(
                EvalCase(condition, memory, template_id, seed, on_device, skin=skin)
                for template_id in templates
                for seed in seeds
            )
    return cases


def run_case(
    case: EvalCase, kb: KnowledgeBase | None, view: GraphView | None, max_steps: int = 40
) -> dict[str, Any]:
    """One episode with a fresh team; the result row of ``results.jsonl``."""
    from guigraph.envs.simphone.tasks import make_task

    task = make_task(case.template_id, case.seed)
    outcome = run_task(task, case.seed, case.memory, kb, view, max_steps,
                       device=case.device, version=case.version, skin=case.skin)  # fmt: skip
    return {"key": case.key, **asdict(case), "category": task.category, **outcome}


def run_task(
    task: Task,
    seed: int,
    memory: str,
    kb: KnowledgeBase | None,
    view: GraphView | None,
    max_steps: int = 40,
    *,
    device: str = "Pixel 7 Pro",
    version: int = 1,
    skin: str = "standard",
    team: Team | None = None,
) -> dict[str, Any]:
    """One SimPhone episode of ``task`` (in world ``seed``) by ``team``, by default a fresh
    model-free team with ``memory``: the world checker's verdict, the team's stopping reason,
    steps and seconds."""
    from guigraph.agents.loop import Budget, run_episode
    from guigraph.agents.team import TeamOptions, rule_team
    from guigraph.envs import make

    env = make("simphone", device=device, version=version, skin=skin)
    try:
        team = team or rule_team(kb, view, TeamOptions(memory=Memory(memory)))
        result = run_episode(env, team, task, seed=seed, budget=Budget(max_steps=max_steps))
        verdict = env.evaluate()
        success = verdict is not None and verdict.success
    finally:
        env.close()
    return {
        "success": bool(success),
        "finished": result.finished,
        "reason": result.reason,
        "steps": len(result.steps),
        "seconds": round(result.seconds, 3),
    }


def _rate(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    wins = sum(bool(row["success"]) for row in rows)
    return {"sr": wins / len(rows) if rows else 0.0, "episodes": len(rows), "successes": wins}


def summarize(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """``{condition: {memory: {sr, episodes, successes, per_category: {cat: {...}}}}}``."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault((row["condition"], row["memory"]), []).append(row)
    summary: dict[str, dict[str, dict[str, Any]]] = {}
    for condition in CONDITIONS:
        summary[condition] = {}
        for memory in MEMORIES:
            group = grouped.get((condition, memory), [])
            by_category: dict[str, list[dict[str, Any]]] = {}
            for row in group:
                by_category.setdefault(row["category"], []).append(row)
            summary[condition][memory] = {
                **_rate(group),
                "per_category": {c: _rate(by_category[c]) for c in sorted(by_category)},
            }
    return summary


def resolve_task(text: str, seed: int) -> tuple[Task, bool]:
    """A template id gives its seeded task (``True``: the world can check it); other text is a
    free instruction on a phone with no task set up (``False``: nobody can check it).

    Text shaped like a template id (``app.thing``, no spaces) that is not one is an error, so
    that a typo is not silently run as a free instruction.
    """
    from guigraph.envs.simphone.tasks import TEMPLATES, make_task
    from guigraph.types import Task

    text = text.strip()
    if not text:
        raise ValueError("--task is empty: give a template id or an instruction")
    if text in TEMPLATES:
        return make_task(text, seed), True
    if " " not in text and "." in text:
        raise ValueError(
            f"unknown SimPhone template {text!r}; see `guigraph sim tasks` for the "
            f"{len(TEMPLATES)} templates, or give an instruction in words"
        )
    return Task(task_id=f"free/{seed}", instruction=text), False
