"""``guigraph eval odyssey|sim``: an evaluation into a resumable run folder, at any concurrency."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from guigraph.choices import EvalMemory, Memory, Policy, TeamDesign, Verify
from guigraph.cli import options

if TYPE_CHECKING:
    from guigraph.eval.runner import EvalResult

eval_app = typer.Typer(
    help="Evaluate a team into a run folder (manifest, step and episode lines, summary); "
    "concurrent, resumable, local or on Ray. Format: docs/run-folder.md.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    from guigraph.cli.generalize import generalize

    eval_app.command("generalize")(generalize)
    app.add_typer(eval_app, name="eval")


Out = Annotated[Path, typer.Option("--out", help="Run folder (resumed when it holds a run).")]
Kb = Annotated[Path, typer.Option("--kb", help="Knowledge base built from the train part.")]
Concurrency = Annotated[
    int,
    typer.Option(
        "--concurrency", min=1, help="Episodes in flight; also the most model requests at once."
    ),
]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="Run only the first N episodes.")]
Executor = Annotated[str, typer.Option("--executor", help="local or ray.")]
RayAddress = Annotated[
    str | None, typer.Option("--ray-address", help="Ray cluster to join (default: start locally).")
]
Resume = Annotated[
    bool,
    typer.Option(
        "--resume/--no-resume",
        help="Resume the run in --out (the default); --no-resume refuses an existing run.",
    ),
]
Seed = Annotated[int, typer.Option("--seed", help="Seed handed to the agent loop.")]
Timeout = Annotated[float, typer.Option("--timeout", help="Seconds per model request.")]
Attempts = Annotated[int, typer.Option("--max-attempts", min=1, help="Attempts per model call.")]
Backoff = Annotated[
    float, typer.Option("--backoff", help="First retry wait in seconds (doubles, with jitter).")
]


@eval_app.command("odyssey")
def odyssey(
    data_dir: Annotated[
        Path, typer.Argument(help="Episodes in the GUIOdyssey layout (annotations/, splits/...).")
    ],
    kb: Kb,
    out: Out,
    split: Annotated[
        str, typer.Option("--split", help="random, task, device or app: its test part is run.")
    ] = "random",
    policy: options.PolicyOption = Policy.GRAPH,
    model: options.Model = None,
    base_url: options.BaseUrl = None,
    memory: options.MemoryOption = Memory.GRAPH,
    verify: options.VerifyOption = Verify.ALWAYS,
    concurrency: Concurrency = 1,
    limit: Limit = None,
    executor: Executor = "local",
    ray_address: RayAddress = None,
    resume: Resume = True,
    seed: Seed = 0,
    timeout: Timeout = 60.0,
    max_attempts: Attempts = 5,
    backoff: Backoff = 1.0,
    text_only: options.TextOnly = False,
) -> None:
    """GUIOdyssey offline evaluation: the split's test episodes teacher-forced, official
    matcher. Refuses a knowledge base built from any test episode. ``guigraph score
    RUN/steps.jsonl`` gives the numbers of RUN/summary.json."""
    from guigraph.eval.runner import RunOptions, run_odyssey

    def go(progress: Any) -> EvalResult:
        run_options = RunOptions(concurrency, executor, ray_address, limit, resume)
        data = str(Path(data_dir).resolve())
        spec = _spec("odyssey", kb, policy, memory, verify, seed, model, base_url, concurrency,
                     timeout, max_attempts, backoff, text_only, data=data)  # fmt: skip
        return run_odyssey(data_dir, spec, out, run_options, split, progress)

    _report(_guarded(go))


@eval_app.command("sim")
def sim(
    kb: Kb,
    out: Out,
    templates: Annotated[
        str | None,
        typer.Option("--templates", help="Comma-separated template ids (default: all)."),
    ] = None,
    seeds: Annotated[
        int, typer.Option("--seeds", min=1, help="Instances (world seeds) per template.")
    ] = 1,
    device: Annotated[str, typer.Option("--device", help="Device profile.")] = "Pixel 7 Pro",
    version: Annotated[int, typer.Option("--version", help="App version (1 or 2).")] = 1,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="Step budget.")] = 40,
    policy: options.PolicyOption = Policy.GRAPH,
    team: options.TeamOption = TeamDesign.GUIGRAPH,
    model: options.Model = None,
    base_url: options.BaseUrl = None,
    memory: options.MemoryOption = Memory.GRAPH,
    verify: options.VerifyOption = Verify.ALWAYS,
    concurrency: Concurrency = 1,
    limit: Limit = None,
    executor: Executor = "local",
    ray_address: RayAddress = None,
    resume: Resume = True,
    seed: Seed = 0,
    timeout: Timeout = 60.0,
    max_attempts: Attempts = 5,
    backoff: Backoff = 1.0,
    text_only: options.TextOnly = False,
) -> None:
    """Live SimPhone evaluation: new instances of the task templates, each judged by the
    world's checker (the team never sees it). SR per category; no AMS (nothing to match)."""
    from guigraph.eval.runner import RunOptions, run_sim

    def go(progress: Any) -> EvalResult:
        from guigraph.envs.simphone.tasks import TEMPLATES
        from guigraph.errors import ConfigError
        from guigraph.eval.suite import EVAL_SEED_BASE
        from guigraph.eval.worker import SimJob

        chosen = [t.strip() for t in templates.split(",") if t.strip()] if templates else []
        unknown = sorted(set(chosen) - set(TEMPLATES))
        if unknown:
            raise ConfigError(f"unknown template(s) {', '.join(unknown)}; see guigraph sim tasks")
        jobs = [
            SimJob(template, EVAL_SEED_BASE + n, device, version)
            for template in (chosen or sorted(TEMPLATES))
            for n in range(seeds)
        ]
        run_options = RunOptions(concurrency, executor, ray_address, limit, resume)
        if team is TeamDesign.MGA and policy is not Policy.MODEL:
            raise ConfigError(f"--team mga is a model team: use --policy model, not {policy}")
        spec = _spec("sim", kb, policy, memory, verify, seed, model, base_url, concurrency,
                     timeout, max_attempts, backoff, text_only, max_steps=max_steps,
                     team=team)  # fmt: skip
        return run_sim(jobs, spec, out, run_options, progress)

    _report(_guarded(go))


#: ``--policy`` of ``eval web``: the policies, and ``rule`` for the model-free graph policy
#: (the name the issue and the field give the team without a model).
WEB_POLICIES = {"rule": Policy.GRAPH, **{p.value: p for p in Policy}}


@eval_app.command("web")
def web(
    out: Out,
    kb: Annotated[
        Path | None,
        typer.Option("--kb", help="Knowledge base (not needed with --memory none)."),
    ] = None,
    tasks: Annotated[
        str,
        typer.Option(
            "--tasks",
            help="browsergym (125 tasks), synapse (63), suite (the demo's 13), or "
            "NAME,NAME,... (MiniWoB++ task names).",
        ),
    ] = "browsergym",
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="New seeds per task.")] = 5,
    memory: Annotated[
        EvalMemory,
        typer.Option("--memory", help="graph, trace (one recorded run), or none (no KB)."),
    ] = EvalMemory.GRAPH,
    policy: Annotated[
        str, typer.Option("--policy", help="rule (= graph: no model), model or hybrid.")
    ] = "rule",
    max_steps: Annotated[
        int, typer.Option("--max-steps", min=1, help="Step budget (the field's: 10).")
    ] = 10,
    model: options.Model = None,
    base_url: options.BaseUrl = None,
    verify: options.VerifyOption = Verify.ALWAYS,
    concurrency: Concurrency = 1,
    limit: Limit = None,
    resume: Resume = True,
    seed: Seed = 0,
    timeout: Timeout = 60.0,
    max_attempts: Attempts = 5,
    backoff: Backoff = 1.0,
    text_only: options.TextOnly = False,
    allow_origin: options.AllowOrigin = None,
) -> None:
    """MiniWoB++ in Chromium as the field runs it: every task of the set on new seeds, each
    judged by the page's own reward. The headline is the mean SR over ALL tasks of the set
    (a task the team cannot do counts 0); ``guigraph report RUN`` shows the per-task table
    beside the means over browsergym and synapse."""
    from guigraph.eval.runner import RunOptions, run_web

    def go(progress: Any) -> EvalResult:
        from guigraph.choices import choose
        from guigraph.envs.web import tasksets
        from guigraph.errors import ConfigError
        from guigraph.eval.web import plan_jobs

        chosen_policy = WEB_POLICIES.get(policy) or choose(Policy, policy, "policy")
        task_set = tasksets.resolve(tasks)
        use_graph = memory is not EvalMemory.NONE
        if use_graph and kb is None:
            raise ConfigError("--kb is needed (or --memory none: the team without a KB)")
        graph_memory = Memory.TRACE if memory is EvalMemory.TRACE else Memory.GRAPH
        spec = _spec("web", kb, chosen_policy, graph_memory, verify, seed, model, base_url,
                     concurrency, timeout, max_attempts, backoff, text_only,
                     max_steps=max_steps, use_graph=use_graph,
                     allow_origins=tuple(options.allowed_origins("web", allow_origin)))  # fmt: skip
        jobs = plan_jobs(task_set.tasks, seeds)
        run_options = RunOptions(concurrency, "local", None, limit, resume)
        return run_web(jobs, task_set.label, task_set.tasks, spec, out, run_options, progress)

    _report_web(_guarded(go))


def _report_web(result: EvalResult) -> None:
    summary = result.summary
    means = summary["means"]
    typer.echo(
        f"{result.ran} episodes run, {result.skipped} already done; mean SR over the "
        f"{means['chosen']['tasks']} tasks of {summary['task_set']}: {summary['mean_sr']:.3f} "
        f"(browsergym {means['browsergym']['mean_sr']:.3f}, synapse "
        f"{means['synapse']['mean_sr']:.3f}); {summary['usage']['calls']} model calls. "
        f"Run folder: {result.folder} (per task: guigraph report {result.folder})"
    )


def _spec(
    suite: str, kb: Path | None, policy: Policy, memory: Memory, verify: Verify, seed: int,
    model: str | None, base_url: str | None, concurrency: int, timeout: float,
    max_attempts: int, backoff: float, text_only: bool, **extra: Any,
) -> Any:  # fmt: skip
    from guigraph.agents.team import TeamOptions
    from guigraph.errors import KnowledgeBaseError
    from guigraph.eval.runner import model_settings
    from guigraph.eval.worker import EvalSpec
    from guigraph.graph.kb import DB_FILE

    if policy is Policy.GRAPH:  # the model-free team knows no adaptive verifier
        TeamOptions(memory=memory, verify=verify)
    if kb is None:
        kb_path = ""  # the no-graph baseline: no knowledge base at all
    elif not (Path(kb) / DB_FILE).is_file():
        raise KnowledgeBaseError(f"{kb}: not a knowledge base (no {DB_FILE})")
    else:
        kb_path = str(Path(kb).resolve())
    settings = None
    if policy is not Policy.GRAPH:
        settings = model_settings(
            model, base_url, concurrency, timeout_s=timeout, max_attempts=max_attempts,
            backoff_initial_s=backoff, backoff_max_s=max(backoff, 30.0), vision=not text_only,
        )  # fmt: skip
    return EvalSpec(suite, kb_path, policy, memory, verify, settings, seed, **extra)


def _guarded(go: Any) -> EvalResult:
    """Typed errors as one line (exit 2); Ctrl-C says how to go on (exit 130)."""
    from guigraph.errors import GuigraphError

    try:
        with _ProgressBar() as progress:
            result: EvalResult = go(progress)
            return result
    except KeyboardInterrupt:
        typer.echo("interrupted; run again to resume", err=True)
        raise typer.Exit(130) from None
    except (GuigraphError, OSError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def _report(result: EvalResult) -> None:
    summary = result.summary
    ams = "n/a" if summary.get("ams") is None else f"{summary['ams']:.2f}"
    faults = sum(sum(c.values()) for c in summary.get("faults", {}).values())
    grounding = summary.get("grounding")
    placed = (
        f"; grounding: {grounding['tree'] + grounding['model']} targets placed, "
        f"{grounding['missed']} missed"
        if grounding
        else ""
    )
    typer.echo(
        f"{result.ran} episodes run, {result.skipped} already done; "
        f"{summary['episodes']} episodes: AMS {ams}, SR {summary['sr']:.2f}; "
        f"{summary['usage']['calls']} model calls, {faults} faults{placed}. "
        f"Run folder: {result.folder}"
    )


class _ProgressBar:
    """A rich bar: episodes done and ETA, and under it the running AMS/SR, model calls,
    tokens, cost and faults."""

    def __enter__(self) -> _ProgressBar:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        from guigraph.eval.worker import Tally

        class StatsProgress(Progress):
            stats = ""

            def get_renderables(self) -> Any:
                yield self.make_tasks_table(self.tasks)
                yield Text(self.stats, style="dim")

        self.tally = Tally()
        self.bar = StatsProgress(
            "[progress.description]{task.description}", BarColumn(bar_width=24),
            MofNCompleteColumn(), TimeElapsedColumn(), "eta", TimeRemainingColumn(),
            transient=True,
        )  # fmt: skip
        self.bar.__enter__()
        self.task = self.bar.add_task("episodes", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(None, None, None)

    def start(self, total: int, done: list[dict[str, Any]]) -> None:
        for row in done:
            self.tally.add(row)
        # The bar counts this session's episodes, so that the ETA is this session's pace.
        description = f"episodes ({len(done)} done before)" if done else "episodes"
        self.bar.reset(self.task, total=total - len(done), description=description)
        self._show()

    def episode(self, row: dict[str, Any]) -> None:
        self.tally.add(row)
        self.bar.update(self.task, advance=1)
        self._show()

    def _show(self) -> None:
        t = self.tally
        ams = "-" if math.isnan(t.ams) else f"{t.ams:.1f}"
        sr = "-" if math.isnan(t.sr) else f"{t.sr:.1f}"
        self.bar.stats = (
            f"{t.episodes} episodes · AMS {ams} · SR {sr} · {t.calls} calls · "
            f"{t.tokens / 1000:.1f}k tokens · ${t.cost:.2f} · {t.faults} faults"
        )
        self.bar.refresh()
