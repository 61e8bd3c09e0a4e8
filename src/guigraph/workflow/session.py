"""One workflow run set up from its file and the command line: the world, the task it sets
up, the healer, and the revised file a healed run leaves behind (``--update``).

The world's checker judges a run only when the run's values are the ones the world's task
was given (``world.values``): the checker knows that task's values, not a row's.
Otherwise the workflow's own checks and expected states are the verdict.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.envs.base import StepResult
from guigraph.envs.wrappers import RecordEpisodes
from guigraph.errors import ConfigError, EnvError
from guigraph.types import Action, ActionType, Task
from guigraph.workflow.batch import RowResult, timed
from guigraph.workflow.export import PARAMS_OPTION
from guigraph.workflow.heal import GraphHealer, Healing
from guigraph.workflow.runner import RunResult, instruction_for, run_workflow
from guigraph.workflow.schema import Step, Target, Workflow, dump_workflow, fill, placeholders

if TYPE_CHECKING:
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.llm.client import ChatClient


@dataclass
class Session:
    workflow: Workflow
    env: str
    env_options: dict[str, Any] = field(default_factory=dict)
    heal: str = "graph"  # "off", "graph" or "model"
    graph: GraphView | None = None  # the KB's states, for healing
    #: Record each completed run here as a demonstration (``guigraph build DIR --kb KB``).
    record: Path | None = None
    model: ChatClient | None = None  # the model team's client, for --heal model
    #: The KB (opened shared): with it, the graph team takes over what a step cannot heal.
    kb: KnowledgeBase | None = None
    #: Every healing of every row, for ``--update``.
    healings: list[Healing] = field(default_factory=list)
    results: list[RunResult] = field(default_factory=list)
    #: The first run that healed something: ``--update`` revises the workflow it ran.
    healed_run: RunResult | None = None

    def run_row(self, row: int, values: dict[str, str]) -> RowResult:
        from guigraph.envs import make

        clock = timed()
        try:
            env = make(self.env, **self._options_for(values))
            if self.record is not None:
                env = Demonstrations(env, self.record)
            try:
                task, checked = self._task(env, values)
                task = replace(task, instruction=instruction_for(self.workflow, values))
                healer = self._healer()
                result = run_workflow(
                    self.workflow, env, values, task, self.workflow.world.seed, healer
                )
            finally:
                env.close()
        except EnvError as exc:  # the world broke (a browser that would not start): this row
            failure = f"the world failed: {exc}"
            return RowResult(row, values, False, None, 0, 0, clock(), failure=failure)
        self.healings += result.healings
        self.results.append(result)
        if result.healings and self.healed_run is None:
            self.healed_run = result
        success = result.success if checked else None
        ok = result.completed and success is not False
        return RowResult(
            row=row, values=values, ok=ok, success=success, steps=result.steps_done,
            healed=sum(h.healed for h in result.healings), seconds=clock(),
            failure=result.failure or ("" if ok else "the world's checker says the task failed"),
            healings=[h.to_dict() for h in result.healings], model_calls=result.model_calls,
            alternatives=result.alternatives,
            runner_seconds=result.runner_seconds, world_seconds=result.world_seconds,
            runner_cpu_seconds=result.runner_cpu_seconds,
            actions=len(result.events),
        )  # fmt: skip

    def _healer(self) -> GraphHealer | None:
        if self.heal == "graph":
            return GraphHealer(self.graph, self.kb)
        if self.heal == "model":
            from guigraph.workflow.model_heal import ModelHealer

            if self.model is None:
                raise ConfigError("--heal model needs a model: --model NAME --base-url URL")
            return ModelHealer(self.model, self.graph)
        return None

    def _options_for(self, values: Mapping[str, str]) -> dict[str, Any]:
        """The world's options for a row: a world whose tasks take parameters (a web task
        file) is given the row's values as its task's (``world.task_params``)."""
        tied = self.workflow.world.task_params
        given = self.env_options.get(PARAMS_OPTION)
        if not tied or not (given is None or isinstance(given, dict)):
            return dict(self.env_options)
        row = {task: fill(written, values) for task, written in tied.items()}
        return {**self.env_options, PARAMS_OPTION: {**(given or {}), **row}}

    def _task(self, env: Any, values: Mapping[str, str]) -> tuple[Task, bool]:
        spec = self.workflow.world
        if spec.task:
            task = env.make_task(spec.task, spec.seed)
            # The checker knows the task's values: the export's, or a row's tied to them.
            others = {k for k, v in values.items() if spec.values.get(k) != v}
            tied = {name for text in spec.task_params.values() for name in placeholders(text)}
            return task, others <= tied
        return Task(
            task_id=f"workflow/{self.workflow.name}", instruction=self.workflow.description
        ), False


class Demonstrations(RecordEpisodes):
    """Records runs as demonstrations in the GUIOdyssey layout; a run the runner gave up on
    (it ends with IMPOSSIBLE) is no demonstration, and is dropped."""

    def step(self, action: Action) -> StepResult:
        if action.type is ActionType.IMPOSSIBLE:
            self.discard()
        return super().step(action)


def revised(workflow: Workflow, healings: Sequence[Healing]) -> Workflow:
    """The file's workflow with each healed step's new locators and identifying elements (a
    step of an otherwise way revised in place; a recorded way the healer took for a step that
    had none becomes the step's otherwise)."""
    steps = list(workflow.steps)
    for healing in healings:
        at, within = healing.place
        if not healing.healed or not 0 <= at < len(steps):
            continue
        step = steps[at]
        if within is None:
            steps[at] = _healed_step(step, healing)
            if healing.replaced_by and not step.otherwise:
                steps[at] = steps[at].model_copy(update={"otherwise": tuple(healing.replaced_by)})
        elif within < len(step.otherwise):
            others = list(step.otherwise)
            others[within] = _healed_step(others[within], healing)
            steps[at] = step.model_copy(update={"otherwise": tuple(others)})
    return workflow.model_copy(update={"steps": tuple(steps)})


def _healed_step(step: Step, healing: Healing) -> Step:
    update: dict[str, Any] = {}
    if healing.target is not None and step.target is not None:
        # A target that named a parameter keeps naming it: the row's value is not the file's.
        keeps = step.target.text if step.target.text and "{" in step.target.text else None
        update["target"] = Target(text=keeps, role=healing.target.role) if keeps else healing.target
    if healing.expect is not None:
        update["expect"] = healing.expect
    if healing.reads:
        update["read"] = {**step.read, **healing.reads}
    return step.model_copy(update=update)


def write_update(path: Path, session: Session) -> tuple[Path, Path] | None:
    """``<name>.healed.yaml`` beside ``path`` and the unified diff ``<name>.healed.diff``,
    from the first run that healed a step; None when nothing was healed."""
    run = session.healed_run
    if run is None or not any(h.healed for h in run.healings):
        return None
    old = path.read_text(encoding="utf-8")
    new = dump_workflow(revised(session.workflow, run.healings))
    out = path.with_name(f"{path.stem}.healed{path.suffix or '.yaml'}")
    out.write_text(new, encoding="utf-8")
    diff = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), str(path), str(out)
    )
    diff_path = path.with_name(f"{path.stem}.healed.diff")
    diff_path.write_text("".join(diff), encoding="utf-8")
    return out, diff_path
