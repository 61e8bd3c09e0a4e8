"""One evaluation worker: a KB, a team factory, a metered model hub; runs one episode per call.

A worker is built from an :class:`EvalSpec` (plain, picklable values: paths and settings, never
an API key) so that the same evaluation runs in this process's threads, in worker processes or
in Ray actors. ``Worker.run(job, emit)`` runs one episode with a fresh team, hands each step's
line to ``emit`` as the step completes and returns the episode's line (docs/run-folder.md).
Jobs are a GUIOdyssey episode id (suite ``odyssey``, teacher-forced replay), a SimPhone case
(suite ``sim``, live, judged by the world's checker) or a MiniWoB++ task and seed (suite
``web``, in one Chromium per worker, judged by the page's own reward).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.agents.loop import EpisodeResult, LoopStep, Team
from guigraph.agents.roles import Plan
from guigraph.choices import Memory, Policy, TeamDesign, Verify
from guigraph.envs.base import Env
from guigraph.envs.wrappers import EnvWrapper
from guigraph.errors import EnvError
from guigraph.eval.metering import EpisodeMeter, Meter, MeteredHub
from guigraph.types import Action, Observation, Task

if TYPE_CHECKING:
    from guigraph.agents.grounding import GroundingCounts
    from guigraph.graph.kb import KnowledgeBase

Row = dict[str, Any]
Emit = Callable[[Row], None]


@dataclass(frozen=True)
class EvalSpec:
    """What every worker of one evaluation needs (picklable; no secrets)."""

    suite: str  # odyssey | sim | web
    kb: str  # "" with use_graph False: no knowledge base at all
    policy: Policy = Policy.GRAPH
    memory: Memory = Memory.GRAPH
    verify: Verify = Verify.ALWAYS
    #: ModelConfig.to_dict() (the key is read from the worker's environment), model policies.
    model: dict[str, Any] | None = None
    seed: int = 0
    data: str = ""  # odyssey: the GUIOdyssey folder
    max_steps: int = 40  # sim: step budget per episode
    screens: str = ""  # sim: where step screenshots are written
    #: False: the team gets no knowledge base (the no-graph baseline, ``--memory none``).
    use_graph: bool = True
    #: web: places every task may visit besides its own origin (``--allow-origin``).
    allow_origins: tuple[str, ...] = ()
    #: The model team's design (``--team``): guigraph's roles or MGA's.
    team: TeamDesign = TeamDesign.GUIGRAPH

    def to_config(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("model")
        if not self.allow_origins:  # a run made without any resumes as it was written
            out.pop("allow_origins")
        else:
            out["allow_origins"] = list(self.allow_origins)
        if out["team"] == TeamDesign.GUIGRAPH:
            del out["team"]  # folders made before --team existed resume unchanged
        return out


@dataclass(frozen=True)
class SimJob:
    """One live SimPhone episode: a template instance on a device."""

    template_id: str
    seed: int
    device: str = "Pixel 7 Pro"
    version: int = 1

    @property
    def episode_id(self) -> str:
        device = re.sub(r"[^A-Za-z0-9]+", "-", self.device).strip("-")
        return f"{self.template_id}-{self.seed}-{device}-v{self.version}"


@dataclass(frozen=True)
class WebJob:
    """One MiniWoB++ episode: a task of the ``miniwob`` package with a seed."""

    task: str
    seed: int

    @property
    def episode_id(self) -> str:
        return f"{self.task}-{self.seed}"


Job = str | SimJob | WebJob


def job_id(job: Job) -> str:
    return job if isinstance(job, str) else job.episode_id


class Worker:
    def __init__(self, spec: EvalSpec, concurrency: int = 1) -> None:
        from guigraph.compiler.index import GraphView
        from guigraph.graph.kb import KnowledgeBase
        from guigraph.llm.limits import ConcurrencyLimit

        self.spec = spec
        self.kb: KnowledgeBase | None = None
        self.view: GraphView | None = None
        if spec.kb:
            self.kb = KnowledgeBase.open(spec.kb, shared=True)
            self.view = GraphView.load(self.kb)
            _warm_up(self.kb, self.view)
        self._web: Env | None = None  # one browser for every web episode of this worker
        self.meter = Meter()
        self.hub: MeteredHub | None = None
        if spec.policy != "graph":
            from guigraph.llm.config import ModelConfig, RoleModels

            config = ModelConfig.from_dict(spec.model or {}).resolved()
            # One limit for every client of this worker: the server sees at most this many.
            self.hub = MeteredHub(RoleModels(default=config), self.meter,
                                  ConcurrencyLimit(max(1, concurrency)))  # fmt: skip
        self.dataset: Any = None
        if spec.suite == "odyssey":
            from guigraph.data.odyssey import OdysseyDataset

            self.dataset = OdysseyDataset(Path(spec.data))

    def close(self) -> None:
        if self._web is not None:
            self._web.close()
            self._web = None
        if self.hub is not None:
            self.hub.close()
        if self.kb is not None:
            self.kb.close()

    def make_team(self, odyssey: bool, grounding: GroundingCounts | None = None) -> Team:
        use_graph = self.spec.use_graph and self.kb is not None
        kb, view = (self.kb, self.view) if use_graph else (None, None)
        if self.hub is None:
            from guigraph.agents.team import TeamOptions, rule_team

            options = TeamOptions(
                memory=self.spec.memory, verify=self.spec.verify, use_graph=use_graph
            )
            return rule_team(kb, view, options)
        from guigraph.agents.model_team import ModelTeamOptions, model_team
        from guigraph.types import ODYSSEY_ACTIONS, ActionType

        model_options = ModelTeamOptions(
            policy=self.spec.policy, verify=self.spec.verify, memory=self.spec.memory,
            use_graph=use_graph,
            action_space=ODYSSEY_ACTIONS if odyssey else frozenset(ActionType),
            team=self.spec.team,
        )  # fmt: skip
        return model_team(kb, view, self.hub, model_options, grounding)

    def run(self, job: Job, emit: Emit) -> Row:
        if isinstance(job, SimJob):
            return self._run_sim(job, emit)
        if isinstance(job, WebJob):
            return self._run_web(job, emit)
        return self._run_odyssey(job, emit)

    # -- GUIOdyssey, teacher-forced --------------------------------------------------------
    def _run_odyssey(self, episode_id: str, emit: Emit) -> Row:
        from guigraph.eval.matching import match_official
        from guigraph.eval.replay import UNPREDICTED, prediction_text, replay_episode
        from guigraph.eval.steps import predicted_step

        episode = self.dataset.load(episode_id)
        self.meter.pop(episode_id)  # a restarted episode starts from zero
        tracker = _StepTracker(episode_id, self.meter)
        rows: dict[int, Row] = {}

        def on_step(record: LoopStep, observation: Observation) -> None:
            index = record.step
            pred = prediction_text(record.executed.action)
            gt = predicted_step(episode, index, pred)
            seen = episode.steps[index].observation
            row = _base_row(gt.episode_id, index, gt.category, gt.step_length, episode.instruction)
            row.update(gt=gt.gt, pred=pred, sam2_bbox=list(gt.sam2_bbox),
                       correct=match_official(pred, gt.gt, gt.sam2_bbox).is_correct)  # fmt: skip
            _fill(row, record, record.executed.action, seen, tracker)
            rows[index] = row
            emit(row)

        started = time.perf_counter()
        replay_episode(episode, self.make_team(odyssey=True), self.spec.seed,
                       [_Callback(on_step, tracker)])  # fmt: skip
        for index in range(len(episode.steps)):
            if index in rows:
                continue
            gt = predicted_step(episode, index, UNPREDICTED)  # the team ended early
            row = _base_row(gt.episode_id, index, gt.category, gt.step_length, episode.instruction)
            row.update(gt=gt.gt, pred=UNPREDICTED, sam2_bbox=list(gt.sam2_bbox), correct=False)
            _fill(row, None, None, episode.steps[index].observation, None)
            rows[index] = row
            emit(row)
        correct = sum(bool(r["correct"]) for r in rows.values())
        return _episode_row(
            episode_id, episode.category, episode.instruction, len(episode.steps), correct,
            correct == len(episode.steps), time.perf_counter() - started, tracker.finish(),
        )  # fmt: skip

    # -- SimPhone, live --------------------------------------------------------------------
    def _run_sim(self, job: SimJob, emit: Emit) -> Row:
        from guigraph.agents.grounding import GroundingCounts
        from guigraph.agents.loop import Budget, run_episode
        from guigraph.envs import make
        from guigraph.eval.replay import prediction_text

        episode_id = job.episode_id
        self.meter.pop(episode_id)
        grounding = GroundingCounts()
        env = _Watched(make("simphone", device=job.device, version=job.version))
        task = env.make_task(job.template_id, job.seed)
        task = replace(task, task_id=episode_id)  # the id tags the episode's model calls
        tracker = _StepTracker(episode_id, self.meter)
        screens = Path(self.spec.screens) / episode_id
        screens.mkdir(parents=True, exist_ok=True)
        count = 0

        def on_step(record: LoopStep, observation: Observation) -> None:
            nonlocal count
            before = env.before[count]
            count += 1
            row = _base_row(episode_id, count - 1, task.category, None, task.instruction)
            row.update(gt=None, pred=prediction_text(record.executed.action), sam2_bbox=[],
                       correct=None)  # fmt: skip
            _fill(row, record, record.executed.action, before, tracker)
            if before.has_screenshot:
                path = screens / f"{count - 1:03d}.png"
                path.write_bytes(before.png_bytes())
                row["screenshot"] = str(path.resolve())
            emit(row)

        started = time.perf_counter()
        try:
            budget = Budget(max_steps=self.spec.max_steps)
            team = self.make_team(odyssey=False, grounding=grounding)
            run_episode(env, team, task, seed=job.seed, budget=budget,
                        callbacks=[_Callback(on_step, tracker)])  # fmt: skip
            verdict = env.evaluate()
            success = verdict is not None and verdict.success
        finally:
            env.close()
        row = _episode_row(
            episode_id, task.category, task.instruction, count, None, bool(success),
            time.perf_counter() - started, tracker.finish(),
        )  # fmt: skip
        if self.spec.team is TeamDesign.MGA:
            row["grounding"] = grounding.to_dict()
        return row

    # -- MiniWoB++, live ---------------------------------------------------------------------
    def _run_web(self, job: WebJob, emit: Emit) -> Row:
        """One MiniWoB++ episode in this worker's Chromium; the page's reward decides. A page
        that breaks counts as a failed episode (with its error), never as a failed run."""
        from guigraph.agents.loop import Budget, run_episode
        from guigraph.envs import make
        from guigraph.eval.replay import prediction_text

        episode_id = job.episode_id
        self.meter.pop(episode_id)
        if self._web is None:
            self._web = make("web", allow_origins=list(self.spec.allow_origins))
        env = _Watched(self._web)
        tracker = _StepTracker(episode_id, self.meter)
        count, reason, error = 0, "", ""
        instruction = ""

        def on_step(record: LoopStep, observation: Observation) -> None:
            nonlocal count
            before = env.before[count]
            count += 1
            row = _base_row(episode_id, count - 1, job.task, None, instruction)
            row.update(gt=None, pred=prediction_text(record.executed.action), sam2_bbox=[],
                       correct=None)  # fmt: skip
            _fill(row, record, record.executed.action, before, tracker)
            emit(row)

        started = time.perf_counter()
        verdict = None
        try:
            task = env.make_task(f"miniwob/{job.task}", job.seed)
            instruction = task.instruction
            task = replace(task, task_id=episode_id)  # the id tags the episode's model calls
            budget = Budget(max_steps=self.spec.max_steps)
            team = self.make_team(odyssey=False)
            callbacks = [_Callback(on_step, tracker)]
            result = run_episode(env, team, task, job.seed, budget, callbacks)
            reason = result.reason
            verdict = env.evaluate()
        except EnvError as exc:  # the page or browser broke: this episode failed
            reason, error = "error", str(exc)
        except Exception as exc:  # a bug fails its episode (with its error), never the run
            reason, error = "crash", f"{type(exc).__name__}: {exc}"
        row = _episode_row(
            episode_id, job.task, instruction, count, None,
            bool(verdict is not None and verdict.success), time.perf_counter() - started,
            tracker.finish(),
        )  # fmt: skip
        row.update(task=job.task, seed=job.seed, reward=verdict.reward if verdict else None,
                   reason=reason, error=error)  # fmt: skip
        return row


def _warm_up(kb: KnowledgeBase, view: Any) -> None:
    """Fill the KB's lazy caches once, before threads share it."""
    _ = kb.state_index
    kb.search_traces("warm up", 1)


class _StepTracker:
    """Per-step calls, tokens and wall time of one episode, read from the meter."""

    def __init__(self, episode_id: str, meter: Meter) -> None:
        self.episode_id, self.meter = episode_id, meter
        self.last = time.perf_counter()
        self.invalid = 0

    def lap(self) -> float:
        now = time.perf_counter()
        seconds, self.last = now - self.last, now
        return seconds

    def finish(self) -> EpisodeMeter:
        meter = self.meter.pop(self.episode_id)
        if self.invalid:
            meter.role("decider").unparseable += self.invalid
        return meter


class _Callback:
    def __init__(self, on_step: Callable[[LoopStep, Observation], None], tracker: _StepTracker):
        self.on_step_fn, self.tracker = on_step, tracker

    def on_start(self, task: Task, plan: Plan, context: Any) -> None:
        pass

    def on_step(self, record: LoopStep, observation: Observation) -> None:
        self.on_step_fn(record, observation)

    def on_end(self, result: EpisodeResult) -> None:
        pass


class _Watched(EnvWrapper):
    """An environment that remembers the screen before each step (the one the step saw)."""

    def __init__(self, inner: Env) -> None:
        super().__init__(inner)
        self.before: list[Observation] = []
        self._last: Observation | None = None

    def reset(self, task: Task, seed: int) -> Observation:
        self._last = super().reset(task, seed)
        return self._last

    def step(self, action: Action) -> Any:
        assert self._last is not None
        self.before.append(self._last)
        result = super().step(action)
        self._last = result.observation
        return result


def _base_row(
    episode_id: str, step: int, category: str, step_length: int | None, instruction: str
) -> Row:
    return {
        "episode_id": episode_id,
        "step": step,
        "category": category,
        "step_length": step_length,
        "instruction": instruction,
    }


def _fill(
    row: Row,
    record: LoopStep | None,
    action: Action | None,
    seen: Observation,
    tracker: _StepTracker | None,
) -> None:
    """The fields beyond the STEPS ones (what the viewer shows)."""
    path = seen.screenshot_path
    row["action"] = action.to_dict() if action is not None else None
    row["screenshot"] = str(Path(path).resolve()) if path is not None else None
    row["screen"] = [seen.screen.width, seen.screen.height]
    row["subgoal"] = record.subgoal.description if record is not None else ""
    row["proposals"] = [] if record is None else [_proposal(a) for a in record.attempts]
    row["narrative"] = record.narrative if record is not None else ""
    row["outcome"] = record.outcome.status.value if record is not None else ""
    row["outcome_note"] = record.outcome.note if record is not None else ""
    calls, prompt, completion, seconds = 0, 0, 0, 0.0
    if tracker is not None and record is not None:
        meter = tracker.meter.episode(tracker.episode_id)
        calls, prompt, completion = meter.step_usage(record.step)
        seconds = tracker.lap()
        tracker.invalid += sum(
            a.proposal.source == "invalid" and a.proposal.reason.startswith("unparseable reply")
            for a in record.attempts
        )
    row["tokens"] = {"prompt": prompt, "completion": completion}
    row["calls"] = calls
    row["seconds"] = round(seconds, 4)


def _proposal(attempt: Any) -> Row:
    return {
        "action": attempt.proposal.action.to_dict(),
        "accepted": bool(attempt.verdict.approved),
        "feedback": attempt.verdict.feedback,
        "source": attempt.proposal.source,
        "reason": attempt.proposal.reason,
    }


def _episode_row(
    episode_id: str,
    category: str,
    instruction: str,
    steps: int,
    correct: int | None,
    success: bool,
    seconds: float,
    meter: EpisodeMeter,
) -> Row:
    total = meter.totals()
    return {
        "episode_id": episode_id,
        "category": category,
        "instruction": instruction,
        "steps": steps,
        "correct_steps": correct,
        "success": success,
        "seconds": round(seconds, 4),
        "tokens": {"prompt": total.prompt_tokens, "completion": total.completion_tokens},
        "calls": total.calls,
        "usage": {role: c.usage() for role, c in sorted(meter.roles.items())},
        "faults": {role: c.faults() for role, c in sorted(meter.roles.items())},
    }


@dataclass
class Tally:
    """Running figures for the progress bar, from episode lines."""

    episodes: int = 0
    steps: int = 0  # steps with a verdict (replay)
    correct: int = 0
    successes: int = 0
    calls: int = 0
    tokens: int = 0
    faults: int = 0
    cost: float = 0.0
    categories: set[str] = field(default_factory=set)

    def add(self, row: Row) -> None:
        self.episodes += 1
        if row.get("correct_steps") is not None:  # live episodes have no step verdicts
            self.steps += int(row.get("steps") or 0)
            self.correct += int(row["correct_steps"])
        self.successes += bool(row.get("success"))
        self.calls += int(row.get("calls") or 0)
        tokens = row.get("tokens") or {}
        self.tokens += int(tokens.get("prompt", 0)) + int(tokens.get("completion", 0))
        for counts in (row.get("faults") or {}).values():
            self.faults += sum(int(v) for v in counts.values())
        for usage in (row.get("usage") or {}).values():
            self.cost += float(usage.get("cost_usd", 0.0))

    @property
    def ams(self) -> float:
        return 100 * self.correct / self.steps if self.steps else math.nan

    @property
    def sr(self) -> float:
        return 100 * self.successes / self.episodes if self.episodes else math.nan
