"""``guigraph run`` (one task, step by step) and ``guigraph retrieve`` (what graph RAG returns)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from guigraph.choices import History, Memory, Policy, SlotFilling, TeamDesign, Verify
from guigraph.cli import options

if TYPE_CHECKING:
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.retrieval.context import Context


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("retrieve")(retrieve)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _open_kb(path: Path) -> KnowledgeBase:
    from guigraph.errors import KnowledgeBaseError
    from guigraph.graph.kb import KnowledgeBase

    if not path.is_dir():
        raise _fail(f"{path}: no such knowledge-base folder (make one with `guigraph build`)")
    try:
        return KnowledgeBase.open(path)
    except KnowledgeBaseError as exc:
        raise _fail(str(exc)) from exc


def run(
    task: Annotated[
        str,
        typer.Option(
            "--task",
            help="A task id of the world (a SimPhone template id, see `guigraph sim tasks`; "
            "a task of --tasks FILE; success is checked) or an instruction in words (nothing "
            "can check it).",
        ),
    ],
    tasks: Annotated[
        Path | None,
        typer.Option(
            "--tasks",
            help="Web: a task file (TOML) naming each task's start page, wordings, parameters "
            "and checks; --task names one of them (docs/web-recording.md).",
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            help="Web: a task parameter NAME=VALUE (repeatable); a secret (a password) too, "
            "typed where the recording says {NAME} and never written.",
        ),
    ] = None,
    env: Annotated[
        str, typer.Option("--env", help=f"World to act in: {', '.join(_world_names())}.")
    ] = "simphone",
    seed: Annotated[int, typer.Option("--seed", help="World and task seed.")] = 0,
    kb: Annotated[
        Path | None, typer.Option("--kb", help="Knowledge-base folder (without: no graph).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run folder for the trajectory.")
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            help="Also write the run as a GUIOdyssey-layout episode into this folder "
            "(grow a KB from it with `guigraph build DIR --kb KB`).",
        ),
    ] = None,
    device: Annotated[
        str, typer.Option("--device", help="SimPhone: device profile name.")
    ] = "Pixel 7 Pro",
    version: Annotated[int, typer.Option("--version", help="SimPhone: app version (1 or 2).")] = 1,
    skin: Annotated[
        str, typer.Option("--skin", help="SimPhone: standard, html-ids, no-ids or android.")
    ] = "standard",
    serial: Annotated[
        str | None, typer.Option("--serial", help="Android: the device's serial.")
    ] = None,
    env_option: Annotated[
        list[str] | None,
        typer.Option("--env-option", help="Another world option, KEY=VALUE (repeatable)."),
    ] = None,
    allow_origin: options.AllowOrigin = None,
    memory: options.MemoryOption = Memory.GRAPH,
    no_graph: Annotated[
        bool, typer.Option("--no-graph", help="Use no retrieval and no graph at all.")
    ] = False,
    history: options.HistoryOption = History.NARRATIVE,
    verify: options.VerifyOption = Verify.ALWAYS,
    policy: options.PolicyOption = Policy.GRAPH,
    team: options.TeamOption = TeamDesign.GUIGRAPH,
    slot_filler: options.SlotFillerOption = SlotFilling.RULE,
    model: options.Model = None,
    base_url: options.BaseUrl = None,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="Step cap.")] = 40,
    model_config: options.ModelConfigFile = None,
    text_only: options.TextOnly = False,
    timeout: options.Timeout = None,
    max_tokens: options.MaxTokens = None,
    retries: options.Retries = None,
    coords: options.Coords = None,
    structured: options.Structured = None,
    model_set: options.ModelSet = None,
) -> None:
    """Run the agent team on one task in any world (model-free by default), printing each step."""
    from contextlib import ExitStack

    from guigraph.agents.factory import team_factory
    from guigraph.agents.grounding import GroundingCounts
    from guigraph.agents.loop import Budget, Callback, run_episode
    from guigraph.agents.team import TeamOptions
    from guigraph.agents.trajectory import ConsoleProgress, TrajectoryWriter
    from guigraph.compiler.fillers import FillerCounts
    from guigraph.envs import Env, make
    from guigraph.envs.wrappers import RecordEpisodes
    from guigraph.errors import ConfigError, GuigraphError

    try:
        if policy is Policy.GRAPH:  # the model-free team knows no adaptive verifier
            TeamOptions(memory=memory, history=history, verify=verify, use_graph=not no_graph)
        if team is TeamDesign.MGA and policy is not Policy.MODEL:
            raise ConfigError(f"--team mga is a model team: use --policy model, not {policy}")
        settings = world_options(env, device, version, skin, serial, env_option or [])
        if allow_origin:
            settings["allow_origins"] = options.allowed_origins(env, allow_origin)
        settings.update(task_options(env, tasks, param or []))
        world: Env = make(env, **settings)
    except (GuigraphError, ValueError) as exc:  # a world may fail to start (no device)
        raise _fail(str(exc)) from exc
    try:
        the_task = world.make_task(task, seed)
    except (GuigraphError, ValueError) as exc:
        world.close()
        raise _fail(str(exc)) from exc
    if record is not None:
        world = RecordEpisodes(world, record)
    knowledge = _open_kb(kb) if kb is not None and not no_graph else None
    if knowledge is None:
        reason = "--no-graph" if no_graph else "no --kb given"
        typer.echo(f"note: running without a knowledge base ({reason}): the team has no graph")
    callbacks: list[Callback] = [ConsoleProgress()]
    if out is not None:
        callbacks.append(TrajectoryWriter(out))
    filled, grounding = FillerCounts(), GroundingCounts()
    try:
        with ExitStack() as resources:
            models = options.role_models(
                model, base_url, model_config, text_only, timeout, max_tokens, retries, coords,
                structured, model_set,
            )  # fmt: skip
            make_team, hub = team_factory(
                policy, knowledge, resources, memory=memory, verify=verify, history=history,
                use_graph=not no_graph, models=models, action_space=world.action_space,
                usage_path=out / "usage.json" if out is not None else None,
                slot_filler=slot_filler, filler_counts=filled, team=team, grounding=grounding,
            )  # fmt: skip
            agents = make_team(the_task)
            budget = Budget(max_steps)
            run_episode(world, agents, the_task, seed=seed, budget=budget, callbacks=callbacks)
            if hub is not None:
                typer.echo(hub.ledger.summary())
                if slot_filler is SlotFilling.MODEL:
                    typer.echo(f"slot filler: {filled.describe()}")
                if team is TeamDesign.MGA:
                    typer.echo(f"grounding: {grounding.describe()}")
                if out is not None:  # usage is kept with the run (keys never are)
                    hub.save_usage(out / "usage.json")
            verdict = world.evaluate()
    except GuigraphError as exc:
        raise _fail(str(exc)) from exc
    finally:
        world.close()
        if knowledge is not None:
            knowledge.close()
    success = None if verdict is None else verdict.success
    if verdict is None:
        typer.echo("success: unknown (this world has no checker for this task)")
    else:
        why = f": {verdict.detail}" if verdict.detail and not verdict.success else ""
        typer.echo(f"success: {'yes' if verdict.success else 'no'} (the world's checker){why}")
    if out is not None:
        _write_outcome(out, success, grounding.to_dict() if team is TeamDesign.MGA else None)
        typer.echo(f"trajectory: {out}")
    if record is not None:
        typer.echo(f"recorded: {record} (grow a KB with: guigraph build {record} --kb KB)")


def _world_names() -> list[str]:
    from guigraph.envs.registry import names

    return names()


def world_options(
    env: str, device: str, version: int, skin: str, serial: str | None, extra: list[str]
) -> dict[str, Any]:
    """The options ``envs.make`` gets: each world's own flags, then ``--env-option K=V``."""
    settings: dict[str, Any] = {}
    if env == "simphone":
        settings.update(device=device, version=version, skin=skin)
    if serial is not None:
        settings["serial"] = serial
    for item in extra:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--env-option takes KEY=VALUE, got {item!r}")
        try:
            settings[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            settings[key.strip()] = value
    return settings


def task_options(env: str, tasks: Path | None, params: list[str]) -> dict[str, Any]:
    """``--tasks`` and ``--param`` as the web world's options (other worlds have neither)."""
    if tasks is None and not params:
        return {}
    if env != "web":
        raise ValueError(f"--tasks and --param are options of --env web, not --env {env}")
    given: dict[str, str] = {}
    for item in params:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param takes NAME=VALUE, got {item.split('=')[0]!r}")
        given[key.strip()] = value
    return {"params": given, **({"tasks": str(tasks)} if tasks is not None else {})}


def _write_outcome(out: Path, success: bool | None, grounding: dict[str, int] | None) -> None:
    """The checker's verdict beside the trajectory (the team never saw it), and what MGA's
    grounding step did."""
    path = out / "result.json"
    data: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    data["success"] = success
    if grounding is not None:
        data["grounding"] = grounding
    path.write_text(json.dumps(data, indent=2) + "\n")


def retrieve(
    kb: Annotated[Path, typer.Argument(help="Knowledge-base folder.")],
    task: Annotated[str, typer.Argument(help="The task in words.")],
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, help="Traces to retrieve.")] = 4,
    token_budget: Annotated[
        int, typer.Option("--token-budget", min=1, help="Budget of the context text.")
    ] = 1500,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show what graph RAG hands the team: similar traces, filled slots, linearized context."""
    from guigraph.retrieval.context import retrieve_said

    with _open_kb(kb) as knowledge:
        context = retrieve_said(knowledge, task, k=k, token_budget=token_budget)
    if as_json:
        typer.echo(json.dumps(context_dict(context), indent=1, ensure_ascii=False))
        return
    _print_context(context)


def context_dict(context: Context) -> dict[str, Any]:
    return {
        "task": context.instruction,
        "traces": [
            {
                "episode_id": item.trace.episode_id,
                "score": round(item.score, 4),
                "instruction": item.trace.instruction,
                "category": item.trace.category,
                "slot_values": {str(k): v for k, v in item.slot_values.items()},
                "missing_slots": [str(k) for k in item.missing_slots],
            }
            for item in context.traces
        ],
        "nodes": len(context.nodes),
        "edges": len(context.edges),
        "context": context.text,
        "tokens": context.tokens,
        "truncated": context.truncated,
    }


def _print_context(context: Context) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(highlight=False)
    table = Table(title=f"Traces most similar to: {context.instruction}")
    for column in ("score", "instruction", "values for this task", "missing slots"):
        table.add_column(column, overflow="fold")
    for item in context.traces:
        filled = ", ".join(f"{k}={v!r}" for k, v in item.slot_values.items())
        table.add_row(
            f"{item.score:.3f}",
            escape(item.trace.instruction),
            escape(filled) or "-",
            escape(", ".join(map(str, item.missing_slots))) or "-",
        )
    console.print(table)
    cut = " (truncated to the budget)" if context.truncated else ""
    console.print(
        f"[bold]Context[/bold]: {context.tokens} tokens{cut}, subgraph of "
        f"{len(context.nodes)} states and {len(context.edges)} transitions"
    )
    console.print(escape(context.text))
