"""``guigraph eval generalize``: the generalization benchmark (reworded tasks, new pairings)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from guigraph.cli.demo import JsonResult, LogEpisodes, LogSeed
from guigraph.cli.encoder import KBEncoder, check_encoder
from guigraph.graph.settings import DEFAULT_ENCODER

if TYPE_CHECKING:
    from rich.console import Console

KIND_TITLES = {
    "reworded": "seen tasks, new wording",
    "recorded": "same tasks, recorded wording",
    "pairing": "new pairings",
}


def generalize(
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Run folder (logs/, kb/ as the demo makes them; a demo folder serves); resumable.",
        ),
    ] = Path("runs/demo"),
    frozen: Annotated[
        bool,
        typer.Option(
            "--frozen",
            help="Run the frozen evaluation half (once, for the reported figures) instead of "
            "the development half. Its failed cases are counted, not listed.",
        ),
    ] = False,
    as_json: JsonResult = False,
    episodes: LogEpisodes = 300,
    seed: LogSeed = 11,
    skin: Annotated[
        str, typer.Option("--skin", help="How SimPhone reports elements (as for the demo).")
    ] = "standard",
    encoder: KBEncoder = DEFAULT_ENCODER,
) -> None:
    """Seen tasks in wording nobody recorded and new pairings of recorded workflows, with the
    workflow graph and the trace baseline, on the demo's KB. The development half by
    default; fixes are to be guided by it only."""
    from guigraph.cli.demo import show_run
    from guigraph.envs.simphone.generalize import Half
    from guigraph.envs.simphone.skins import skin_conventions
    from guigraph.eval.demo import DemoConfig
    from guigraph.eval.generalize import GeneralizeConfig, run_generalize

    try:
        skin_conventions(skin)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--skin") from exc
    check_encoder(encoder)
    half = Half.FROZEN if frozen else Half.DEV
    demo = DemoConfig(episodes=episodes, seed=seed, skin=skin, encoder=encoder)
    config = GeneralizeConfig(demo, half)
    show_run(
        as_json,
        lambda reporter: run_generalize(out, config, reporter, allow_frozen=frozen),
        lambda console, report: _print(console, report, out),
    )


def _print(console: Console, report: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    table = Table(title=f"Generalization benchmark, {report['half']} half: SR")
    table.add_column("kind")
    table.add_column("graph", justify="right")
    table.add_column("trace", justify="right")
    table.add_column("episodes", justify="right")
    for kind, title in KIND_TITLES.items():
        rates = report[kind]
        table.add_row(
            title,
            f"{rates['graph']['sr']:.2f}",
            f"{rates['trace']['sr']:.2f}",
            str(rates["graph"]["episodes"]),
        )
    console.print(table)
    setup = report["setup"]
    console.print(
        f"{setup['items']} wordings from {setup['benchmark']}; KB of {setup['logs_episodes']} "
        f"episodes (seed {setup['logs_seed']}). Frozen half run {setup['frozen_runs']} times "
        f"in this folder. Encoder {setup['encoder']}. {report['failures_count']} graph failures"
        f"{' listed with --json' if report['half'] == 'dev' else ' (not listed for this half)'}. "
        f"{setup['seconds']} s. Run folder: {out}"
    )
