"""The task suite's public face: list templates, make seeded tasks, check success, plan.

A :class:`~guigraph.types.Task` is pure data (template id and parameters); everything that needs
the phone (setting it up, checking it, the expert's plan) is looked up from the template here.
"""

from __future__ import annotations

import random
from typing import Any

from guigraph.envs.simphone import suite_multi, suite_single  # noqa: F401 - registers templates
from guigraph.envs.simphone.expert import Step
from guigraph.envs.simphone.templates import TEMPLATES, Template
from guigraph.envs.simphone.widgets import APPS
from guigraph.envs.simphone.world import World
from guigraph.types import CATEGORIES, Task

__all__ = ["TEMPLATES", "check_success", "get_template", "make_task", "plan_for", "setup_world"]


def get_template(template_id: str) -> Template:
    """A suite template, or a pairing of the generalization benchmark (never recorded)."""
    from guigraph.envs.simphone.generalize import packaged
    from guigraph.envs.simphone.pairings import PAIRINGS

    if template_id in TEMPLATES:
        return TEMPLATES[template_id]
    packaged()  # reading the benchmark registers its pairings
    try:
        return PAIRINGS[template_id]
    except KeyError:
        raise ValueError(
            f"unknown SimPhone template {template_id!r}; known: {', '.join(sorted(TEMPLATES))}"
        ) from None


def make_task(template_id: str, seed: int) -> Task:
    """The task of ``template_id`` for world ``seed``: same seed, same task and same world."""
    tpl = get_template(template_id)
    world = World(seed)
    rng = random.Random(f"{template_id}/{seed}")
    params = tpl.sample(rng, world)
    instruction = rng.choice(tpl.phrasings).format(**params)
    return Task(
        task_id=f"{template_id}/{seed}",
        instruction=instruction,
        category=tpl.category,
        apps=tpl.apps,
        template_id=template_id,
        params=params,
    )


def meta_task(task: Task) -> tuple[str, str]:
    """GUIOdyssey's ``meta_task`` (the template) and ``task`` (the filled template)."""
    tpl = get_template(task.template_id)
    return tpl.phrasings[0], tpl.phrasings[0].format(**task.params)


def setup_world(task: Task, world: World) -> None:
    """Nothing to prepare beyond the seeded world: params are sampled from that same world."""
    if task.template_id:
        get_template(task.template_id)


def check_success(task: Task, world: World) -> bool:
    return bool(get_template(task.template_id).check(dict(task.params), world))


def plan_for(task: Task, world: World) -> list[Step]:
    return get_template(task.template_id).plan(dict(task.params), world)


def template_table() -> list[dict[str, Any]]:
    """One row per template, for ``guigraph sim tasks``."""
    return [
        {
            "template_id": t.template_id,
            "category": t.category,
            "apps": list(t.apps),
            "example": t.phrasings[0],
            "recombines": list(t.recombines),
        }
        for t in TEMPLATES.values()
    ]


def _check_suite() -> None:
    for tpl in TEMPLATES.values():
        if tpl.category not in CATEGORIES:
            raise ValueError(f"template {tpl.template_id}: unknown category {tpl.category!r}")
        labels = {label for label, _, _ in APPS.values()}
        unknown = set(tpl.apps) - labels
        if unknown:
            raise ValueError(f"template {tpl.template_id}: unknown apps {sorted(unknown)}")


_check_suite()
