"""``guigraph demo``: the main job on the embedded default (simulated phone, model-free agents)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from guigraph.choices import Memory
from guigraph.cli.encoder import KBEncoder, check_encoder
from guigraph.graph.settings import DEFAULT_ENCODER

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

CONDITION_TITLES = {"seen": "seen", "unseen_templates": "unseen", "other_device": "tablet"}


# Options of every command that records SimPhone logs and builds the demo's KB from them.
JsonResult = Annotated[bool, typer.Option("--json", help="Print the results as one JSON object.")]
LogEpisodes = Annotated[
    int, typer.Option("--episodes", min=2, help="Episodes of SimPhone logs to record.")
]
LogSeed = Annotated[int, typer.Option("--seed", help="Seed of the recorded logs.")]


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Run folder (logs/, kb/, results.jsonl, replay-*.jsonl); resumable "
            "(default runs/demo, or runs/demo-<world>).",
        ),
    ] = None,
    world: Annotated[
        str,
        typer.Option(
            "--world",
            help="simphone (the embedded phone), web: MiniWoB++ in Chromium (extra web), or "
            "dokuwiki: Debian's DokuWiki served on 127.0.0.1, a person's demonstrations.",
        ),
    ] = "simphone",
    as_json: JsonResult = False,
    episodes: LogEpisodes = 300,
    seed: LogSeed = 11,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Delete the run folder first instead of resuming.")
    ] = False,
    instances: Annotated[
        str,
        typer.Option(
            "--instances",
            hidden=True,
            help="Instances per template: SEEN,HELD_OUT,OTHER_DEVICE (default 3,8,2).",
        ),
    ] = "3,8,2",
    templates: Annotated[
        str,
        typer.Option(
            "--templates", hidden=True, help="Evaluate only these comma-separated templates."
        ),
    ] = "",
    demos: Annotated[
        int, typer.Option("--demos", min=1, max=10, help="Web: demonstrations per task.")
    ] = 10,
    eval_seeds: Annotated[
        int, typer.Option("--eval-seeds", min=1, help="Web: new seeds per task.")
    ] = 20,
    tasks: Annotated[
        str,
        typer.Option(
            "--tasks",
            help="Web: browsergym (125 tasks), synapse (63), suite (default) or NAME,NAME,...; "
            "every task is in the means, one without a demonstrator at 0.",
        ),
    ] = "",
    memory: Annotated[
        str,
        typer.Option(
            "--memory", help="Web: the memories to evaluate, comma-separated: graph,trace,none."
        ),
    ] = "graph,trace,none",
    skin: Annotated[
        str,
        typer.Option(
            "--skin",
            help="How SimPhone reports elements, in the logs and live: standard, html-ids "
            "(DOM-style ids) or no-ids (text, role and bounds only).",
        ),
    ] = "standard",
    encoder: KBEncoder = DEFAULT_ENCODER,
) -> None:
    """Record SimPhone logs, build the graph, and measure the agent team's success rate.

    Templates that recombine other templates' sub-workflows are held out of the logs. The
    model-free team then runs on new seeds of the seen templates, on the held-out templates
    and on another device profile, each with the workflow graph and with the trace baseline.
    Last, the logs' test split is replayed teacher-forced and scored for AMS and SR.
    """
    from guigraph.envs.simphone.skins import skin_conventions
    from guigraph.eval.demo import DemoConfig, run_demo

    if world == "dokuwiki":
        memories = tuple(m.strip() for m in memory.split(",") if m.strip())
        run_dir = out or Path("runs/demo-dokuwiki")
        _dokuwiki_demo(run_dir, as_json, fresh, demos, eval_seeds, tasks, memories)
        return
    if world != "simphone":
        chosen = tuple(t.strip() for t in templates.split(",") if t.strip())
        memories = tuple(m.strip() for m in memory.split(",") if m.strip())
        run_dir = out or Path(f"runs/demo-{world}")
        _world_demo(world, run_dir, as_json, fresh, demos, eval_seeds, chosen, tasks, memories)
        return
    out = out or Path("runs/demo")
    try:
        chosen = tuple(t.strip() for t in templates.split(",") if t.strip())
        config = DemoConfig(
            episodes=episodes, seed=seed, sizes=_sizes(instances), templates=chosen, skin=skin,
            encoder=encoder,
        )  # fmt: skip
        skin_conventions(skin)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--instances/--skin") from exc
    check_encoder(encoder)
    show_run(
        as_json,
        lambda reporter: run_demo(out, config, reporter, fresh=fresh).to_dict(),
        lambda console, report: _print_report(console, report, out),
    )


def show_run(
    as_json: bool,
    run: Callable[[RichReporter], dict[str, Any]],
    show: Callable[[Console, dict[str, Any]], None],
) -> None:
    """Run a demo-like job under progress bars (on stderr with ``--json``); print its report
    as JSON or with ``show``; a typed error as one line (exit 2)."""
    from guigraph.errors import GuigraphError

    console = _console(stderr=as_json)
    try:
        with _progress(console) as progress:
            report = run(RichReporter(progress))
    except GuigraphError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    if as_json:
        typer.echo(json.dumps(report, indent=1))
        return
    show(console, report)


def _world_demo(
    world: str, out: Path, as_json: bool, fresh: bool, demos: int, seeds: int,
    tasks: tuple[str, ...], task_set: str, memories: tuple[str, ...],
) -> None:  # fmt: skip
    """The demo on another world's tasks (MiniWoB++ on the web)."""
    from guigraph.errors import GuigraphError
    from guigraph.eval.world_demo import WorldDemoConfig, run_world_demo

    try:
        config = WorldDemoConfig(
            world=world, demos=demos, seeds=seeds, tasks=tasks, task_set=task_set,
            memories=memories,
        )  # fmt: skip
    except GuigraphError as exc:
        raise typer.BadParameter(str(exc), param_hint="--memory/--demos") from exc
    _show_demo(
        out, fresh, as_json,
        lambda reporter: run_world_demo(out, config, reporter),
        lambda console, report: _print_world_report(console, report, out),
    )  # fmt: skip


def _show_demo(
    out: Path, fresh: bool, as_json: bool,
    run: Callable[[RichReporter], dict[str, Any]],
    show: Callable[[Console, dict[str, Any]], None],
) -> None:  # fmt: skip
    """A world demo in ``out`` (emptied first with ``--fresh``), shown as ``show_run`` shows."""
    if fresh and out.exists():
        shutil.rmtree(out)
    show_run(as_json, run, show)


def _dokuwiki_demo(
    out: Path, as_json: bool, fresh: bool, demos: int, seeds: int, tasks: str,
    memories: tuple[str, ...],
) -> None:  # fmt: skip
    """The DokuWiki demo: at most 6 demonstrations per workflow and 8 cases per split (the
    wiki's value pools), every workflow unless ``--tasks`` names some."""
    from guigraph.envs.web.dokuwiki_values import WORKFLOWS
    from guigraph.errors import GuigraphError
    from guigraph.eval.dokuwiki_demo import DokuWikiDemoConfig, run_dokuwiki_demo

    workflows = tuple(t.strip() for t in tasks.split(",") if t.strip() and t.strip() != "suite")
    try:
        config = DokuWikiDemoConfig(
            demos=min(demos, 6), cases=min(seeds, 8), memories=memories,
            workflows=workflows or WORKFLOWS,
        )  # fmt: skip
    except GuigraphError as exc:
        raise typer.BadParameter(str(exc), param_hint="--tasks/--memory") from exc
    _show_demo(
        out, fresh, as_json,
        lambda reporter: run_dokuwiki_demo(out, config, reporter),
        lambda console, report: _print_dokuwiki_report(console, report, out),
    )  # fmt: skip


def _print_dokuwiki_report(console: Console, report: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    memories = list(report["mean_sr"])
    table = Table(title="Success rate (SR) of the model-free team on DokuWiki")
    table.add_column("workflow", no_wrap=True)
    table.add_column("split", no_wrap=True)
    for memory in memories:
        table.add_column(memory, justify="right")
    for workflow, splits in report["tasks"].items():
        for split, rates in splits.items():
            table.add_row(workflow, split, *(_cell(rates[m]) for m in memories))
    table.add_section()
    for split, rates in report["by_split"].items():
        table.add_row("[bold]all[/bold]", split, *(f"{rates[m]:.2f}" for m in memories))
    console.print(table)
    console.print(
        f"Run folder: {out} (results.jsonl, logs/, kb/); the wiki's files decide success."
    )


def _print_world_report(console: Console, report: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    memories = list(report["mean_sr"])
    setup = report["setup"]
    missing = report.get("without_demonstrator", {})
    table = Table(
        title=f"Success rate (SR) of the model-free team on {setup['world']} "
        f"({report.get('task_set', 'suite')}: {len(report['tasks'])} tasks)"
    )
    table.add_column("task", no_wrap=True)
    for memory in memories:
        table.add_column(memory, justify="right")
    for task, rates in report["tasks"].items():
        if task in missing:
            table.add_row(task, *("[dim]0 (no demonstrator)[/dim]" for _ in memories))
        else:
            table.add_row(task, *(_cell(rates[m]) for m in memories))
    table.add_section()
    table.add_row(
        "[bold]mean[/bold]", *(f"[bold]{report['mean_sr'][m]:.2f}[/bold]" for m in memories)
    )
    console.print(table)
    kb = setup["kb"]
    console.print(
        f"{setup['demos_per_task']} demonstrations per task ({setup['recorded']['episodes']} "
        f"kept, {setup['recorded']['failed']} failed); KB: {kb.get('nodes')} nodes, "
        f"{kb.get('edges')} edges, {kb.get('traces')} traces. {setup['seeds_per_task']} new "
        f"seeds per task; success = the page's own reward > 0. {setup['seconds']} s. "
        f"Run folder: {out}"
    )
    if missing:
        console.print(
            f"{len(missing)} of {len(report['tasks'])} tasks have no demonstrator and count 0 "
            "in the means (why: guigraph web tasks)."
        )


def _sizes(text: str) -> Any:
    from guigraph.eval.suite import Sizes

    parts = text.split(",")
    if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"expected three whole numbers SEEN,HELD_OUT,OTHER_DEVICE, got {text!r}")
    return Sizes(*(int(p) for p in parts))


def _console(stderr: bool) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def _progress(console: Console) -> Progress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[progress.description]{task.description:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
    )


class RichReporter:
    """The demo's stages as rich progress bars (one per stage, kept on screen)."""

    def __init__(self, progress: Progress):
        self.progress = progress

    def stage(self, description: str, total: int, done: int = 0) -> Callable[[], None]:
        task = self.progress.add_task(description, total=total, completed=done)
        return lambda: self.progress.advance(task)

    def note(self, text: str) -> None:
        self.progress.console.print(text)


def _print_report(console: Console, report: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    setup = report["setup"]
    columns = [(c, m) for c in CONDITION_TITLES for m in Memory]
    categories = sorted({cat for c, m in columns for cat in report[c][m]["per_category"]})
    table = Table(title="Success rate (SR) of the model-free team on SimPhone")
    table.add_column("category", no_wrap=True)
    for condition, memory in columns:
        table.add_column(f"{CONDITION_TITLES[condition]}\n{memory}", justify="right")
    for category in categories:
        cells = [report[c][m]["per_category"].get(category) for c, m in columns]
        table.add_row(category, *(_cell(cell) for cell in cells))
    table.add_section()
    table.add_row("[bold]all[/bold]", *(_cell(report[c][m], bold=True) for c, m in columns))
    table.add_row("episodes", *(str(report[c][m]["episodes"]) for c, m in columns))
    console.print(table)
    kb = setup["kb"]
    console.print(
        f"Logs: {setup['logs_episodes']} episodes (seed {setup['logs_seed']}, noise "
        f"{setup['noise']}); evaluated {len(setup['seen_templates'])} seen templates and "
        f"{len(setup['held_out_templates'])} held out of the logs: "
        f"{', '.join(setup['held_out_templates'])}.\n"
        f"KB (train split): {kb.get('nodes')} nodes, {kb.get('edges')} edges, "
        f"{kb.get('traces')} traces, encoder {setup['encoder']}. Devices: "
        f"{setup['devices']['seen']} and "
        f"{setup['devices']['other_device']} (other device).\n"
        f"SR = share of episodes the world's checker counts as done (the team never sees it). "
        f"{setup['seconds']} s. Run folder: {out}"
    )
    split = setup.get("test_split") or {}
    if split:
        scores = "; ".join(
            f"{memory}: AMS {s['ams']:.2f}, SR {s['sr']:.2f}" for memory, s in split.items()
        )
        steps = next(iter(split.values()))["steps"]
        console.print(
            f"Logs' test split replayed teacher-forced ({steps} steps; GUIOdyssey's offline "
            f"protocol and official matcher, in %): {scores}."
        )


def _cell(rate: dict[str, Any] | None, bold: bool = False) -> str:
    if rate is None or rate["episodes"] == 0:
        return "–"
    text = f"{rate['sr']:.2f}"
    return f"[bold]{text}[/bold]" if bold else text
