"""``guigraph workflow``: export the plan for a task as a file people read and edit, check it,
and run it without a model (docs/workflows.md)."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from guigraph.cli import options

if TYPE_CHECKING:
    from guigraph.workflow.schema import Workflow

workflow_app = typer.Typer(
    help="Workflows as files: export the plan for a task, check a file, run it (from data).",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(workflow_app, name="workflow")


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


@workflow_app.command("export")
def export(
    kb: Annotated[Path, typer.Argument(help="Knowledge-base folder.")],
    task: Annotated[
        str,
        typer.Option(
            "--task",
            help="The instruction, or a task id of the world (its checker then judges runs).",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="The workflow file to write (YAML).")],
    env: Annotated[str, typer.Option("--env", help="The world the workflow runs in.")] = "simphone",
    seed: Annotated[int, typer.Option("--seed", help="Seed of a world task id.")] = 0,
) -> None:
    """Write the plan the model-free team would follow for TASK as a workflow file."""
    from guigraph.errors import GuigraphError
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.workflow.export import export_task
    from guigraph.workflow.schema import dump_workflow

    if not kb.is_dir():
        raise _fail(f"{kb}: no such knowledge-base folder (make one with `guigraph build`)")
    try:
        with KnowledgeBase.open(kb) as knowledge:
            workflow = export_task(knowledge, task, env, seed)
    except (GuigraphError, ValueError) as exc:
        raise _fail(str(exc)) from exc
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dump_workflow(workflow), encoding="utf-8")
    params = ", ".join(f"{p.name} ({p.type.value})" for p in workflow.parameters) or "none"
    typer.echo(f"{out}: {len(workflow.steps)} steps; parameters: {params}")


def _load(path: Path) -> Workflow:
    from guigraph.errors import GuigraphError
    from guigraph.workflow.schema import load_workflow

    try:
        return load_workflow(path)
    except GuigraphError as exc:
        raise _fail(str(exc)) from exc


@workflow_app.command("check")
def check(
    path: Annotated[Path, typer.Argument(help="The workflow file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Validate a workflow file without running it: its parameters and steps."""
    from guigraph.workflow.runner import summary

    workflow = _load(path)
    info = outline(workflow)
    if as_json:
        typer.echo(json.dumps(info, indent=1, ensure_ascii=False))
        return
    typer.echo(f"{path}: valid workflow {workflow.name!r} ({workflow.world.env})")
    for p in workflow.parameters:
        examples = ", ".join(p.examples[:3])
        need = "required" if p.required and p.default is None else f"default {p.default!r}"
        typer.echo(f"  parameter {p.name}: {p.type.value}, {need}; e.g. {examples}")
    for i, step in enumerate(workflow.steps, 1):
        typer.echo(f"  {i:>2}. {summary(step, {})}")
        if step.otherwise:
            ways = "; ".join(summary(s, {}) for s in step.otherwise)
            typer.echo(f"      otherwise (its target not on the screen): {ways}")


def outline(workflow: Workflow) -> dict[str, Any]:
    """What ``check --json`` prints: the workflow's parameters and steps."""
    from guigraph.workflow.runner import summary

    return {
        "name": workflow.name,
        "world": workflow.world.env,
        "task": workflow.world.task,
        "parameters": [
            {
                "name": p.name,
                "type": p.type.value,
                "examples": list(p.examples),
                "required": p.required and p.default is None,
                "default": p.default,
                "options": list(p.options),
            }
            for p in workflow.parameters
        ],
        "steps": [
            {
                "index": i,
                "action": s.action.value,
                "summary": summary(s, {}),
                "otherwise": [summary(o, {}) for o in s.otherwise],
            }
            for i, s in enumerate(workflow.steps, 1)
        ],
        "checks": [c.shows for c in workflow.checks],
    }


@workflow_app.command("run")
def run(
    path: Annotated[Path, typer.Argument(help="The workflow file.")],
    param: Annotated[
        list[str] | None,
        typer.Option("--param", help="A parameter's value, NAME=VALUE (repeatable)."),
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option("--data", help="A CSV file, one run per row (columns: parameter names)."),
    ] = None,
    env: Annotated[
        str | None, typer.Option("--env", help="Run in this world instead of the file's.")
    ] = None,
    env_option: Annotated[
        list[str] | None,
        typer.Option(
            "--env-option", help="A world option, KEY=VALUE (repeatable), e.g. version=2."
        ),
    ] = None,
    kb: Annotated[
        Path | None,
        typer.Option(
            "--kb", help="Knowledge base (checked to exist; healing reads the file's graph states)."
        ),
    ] = None,
    heal: Annotated[
        str,
        typer.Option(
            "--heal",
            help="graph: heal a broken step from the workflow's graph states (and the KB's "
            "recorded screens with --kb); model: a model chooses the control (--model, "
            "--base-url); off: stop at the first broken step, naming it.",
        ),
    ] = "graph",
    update: Annotated[
        bool,
        typer.Option(
            "--update", help="Write the healed workflow beside the file, with a unified diff."
        ),
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run folder (resumed when it holds this run).")
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Rows in flight, each in its own world.")
    ] = 1,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            help="Write each completed run into this folder as a demonstration (GUIOdyssey "
            "layout; grow the KB with `guigraph build DIR --kb KB`). Rows run one at a time.",
        ),
    ] = None,
    model: options.Model = None,
    base_url: options.BaseUrl = None,
    allow_origin: options.AllowOrigin = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Replay a workflow without a model: each step's target by its locators, its expected
    state checked; a broken step healed and listed (or, with --heal off, the run stops there)."""
    from guigraph.errors import GuigraphError
    from guigraph.workflow.batch import RunFolder, read_rows, resolve_values, run_rows, summarize
    from guigraph.workflow.session import Session, write_update

    if heal not in ("off", "graph", "model"):
        raise _fail(f"--heal takes off, graph or model, got {heal!r}")
    if kb is not None and not kb.is_dir():
        raise _fail(f"{kb}: no such knowledge-base folder")
    workflow = _load(path)
    resources = ExitStack()
    try:
        from guigraph.cli.run import world_options

        settings = dict(workflow.world.options) | world_options(
            "", "", 1, "", None, env_option or []
        )
        if allow_origin:  # a healing model's choice stays inside the task, as a run's does
            widened = options.allowed_origins(env or workflow.world.env, allow_origin)
            settings["allow_origins"] = [*settings.get("allow_origins", ()), *widened]
        if data is not None:
            rows = read_rows(data, workflow)
        else:
            rows = [resolve_values(workflow, _pairs(param or []))]
        client = _client(model, base_url) if heal == "model" else None
        knowledge = resources.enter_context(_open_kb(kb)) if kb is not None else None
        graph = _graph(knowledge) if knowledge is not None else None
        session = Session(
            workflow, env or workflow.world.env, settings, heal, graph, record, client, knowledge
        )
        folder = None
        if out is not None:
            manifest = {
                "workflow": str(path), "workflow_name": workflow.name, "rows": len(rows),
                "data": str(data) if data else None, "heal": heal, "env": session.env,
            }  # fmt: skip
            folder = RunFolder(out, manifest)
        concurrent = concurrency if _parallel(session.env) and record is None else 1
        results = run_rows(
            rows, session.run_row, folder, concurrent, None if as_json else _echo_row
        )
    except (GuigraphError, ValueError) as exc:
        raise _fail(str(exc)) from exc
    finally:
        resources.close()
    summary_data = summarize(results, workflow, heal)
    if folder is not None:
        from guigraph.workflow.batch import write_results

        write_results(folder.path, results)
        (folder.path / "summary.json").write_text(json.dumps(summary_data, indent=1) + "\n")
    written = write_update(path, session) if update else None
    if written is not None:
        summary_data["updated"] = {"workflow": str(written[0]), "diff": str(written[1])}
    if record is not None:
        summary_data["recorded"] = str(record)
    if as_json:
        typer.echo(json.dumps(summary_data, indent=1, ensure_ascii=False))
    else:
        _print_summary(summary_data, results)
        if record is not None:
            typer.echo(f"recorded: {record} (grow the KB with: guigraph build {record} --kb KB)")
    if summary_data["successes"] < summary_data["rows"]:
        raise typer.Exit(1)


def _client(model: str | None, base_url: str | None) -> Any:
    """The model team's client for --heal model (the server is checked first)."""
    from guigraph.agents.factory import check_served
    from guigraph.errors import ConfigError
    from guigraph.llm.client import ChatClient
    from guigraph.llm.config import ModelConfig

    if not model:
        raise ConfigError("--heal model needs --model NAME (and --base-url URL)")
    config = ModelConfig(model=model, base_url=base_url or "").resolved()
    check_served(config)
    return ChatClient(config, role="healer")


def _open_kb(path: Path) -> Any:
    """The KB, shared by the rows' threads (read-only)."""
    from guigraph.graph.kb import KnowledgeBase

    return KnowledgeBase.open(path, shared=True)


def _graph(knowledge: Any) -> Any:
    """The KB's graph, loaded once for every row's healer."""
    from guigraph.compiler.index import GraphView

    return GraphView.load(knowledge)


def _pairs(items: list[str]) -> dict[str, str]:
    pairs = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param takes NAME=VALUE, got {item!r}")
        pairs[key.strip()] = value
    return pairs


def _parallel(env: str) -> bool:
    """Worlds made afresh per row can run side by side; a device over ADB cannot."""
    return env != "android"


def _echo_row(result: Any) -> None:
    verdict = "ok" if result.ok else "FAILED"
    healed = f", {result.healed} healed" if result.healed else ""
    why = f": {result.failure}" if result.failure and not result.ok else ""
    typer.echo(
        f"row {result.row}: {verdict} ({result.steps} steps{healed}, {result.seconds:.2f} s){why}"
    )


def _print_summary(data: dict[str, Any], results: list[Any]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from guigraph.workflow.batch import RESULT_COLUMNS, result_cells

    console = Console(highlight=False)
    if len(results) > 1:
        table = Table(title=f"{data['workflow']}: {data['successes']}/{data['rows']} rows")
        for column in RESULT_COLUMNS:
            table.add_column(column)
        for result in results:
            table.add_row(*(escape(str(c)) for c in result_cells(result)))
        console.print(table)
    for item in data["healed_steps"]:
        console.print(
            f"healed row {item['row']} step {item['step']}: {escape(item['reason'])} -> "
            f"{escape(item['how'])}"
        )
    for item in data["unhealed"]:
        console.print(
            f"not healed row {item['row']} step {item['step']}: {escape(item['reason'])} "
            f"({escape(item['how'])})"
        )
    for item in data.get("alternatives", []):
        console.print(
            f"row {item['row']} step {item['step']}: {escape(item['reason'])} -> took its "
            f"otherwise way ({escape('; '.join(item['took']))})"
        )
    for item in data["failures"]:
        console.print(f"row {item['row']} failed: {escape(item['failure'])}")
    console.print(
        f"{data['successes']}/{data['rows']} succeeded; {len(data['healed_steps'])} healed "
        f"step(s); {data['model_calls']} model calls"
    )
    if "updated" in data:
        console.print(
            f"revised workflow: {escape(data['updated']['workflow'])} "
            f"(diff: {escape(data['updated']['diff'])})"
        )


def report_workflow_run(run: Path) -> None:
    """``guigraph report RUN`` for a workflow run folder: its rows and every healed step."""
    summary_path = run / "summary.json"
    if not summary_path.is_file():
        typer.echo(f"{run}: a workflow run with no summary yet (run it again to finish it)")
        return
    from guigraph.workflow.batch import RunFolder

    manifest = json.loads((run / "workflow-run.json").read_text())
    folder = RunFolder(run, manifest)
    results = [folder.done[n] for n in sorted(folder.done)]
    typer.echo(f"{run}: workflow {manifest['workflow_name']!r} ({manifest['workflow']})")
    _print_summary(json.loads(summary_path.read_text()), results)
