"""``guigraph eval generalize``: the generalization benchmark (reworded tasks, new pairings)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from guigraph.choices import Memory, Policy, SlotFilling, Verify
from guigraph.cli import options
from guigraph.cli.demo import JsonResult, LogEpisodes, LogSeed
from guigraph.cli.encoder import KBEncoder, check_encoder
from guigraph.cli.eval import Attempts, Timeout
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
    policy: options.PolicyOption = Policy.GRAPH,
    slot_filler: options.SlotFillerOption = SlotFilling.RULE,
    model: options.Model = None,
    base_url: options.BaseUrl = None,
    text_only: options.TextOnly = False,
    timeout: Timeout = 60.0,
    max_attempts: Attempts = 5,
    max_tokens: options.MaxTokens = None,
    verify: options.VerifyOption = Verify.ALWAYS,
    memory: Annotated[
        Memory | None,
        typer.Option("--memory", help="Run one memory only: graph or trace (default: both)."),
    ] = None,
) -> None:
    """Seen tasks in wording nobody recorded and new pairings of recorded workflows, with the
    workflow graph and the trace baseline, on the demo's KB. The development half by
    default; fixes are to be guided by it only. --policy model|hybrid runs the model team
    on an OpenAI-compatible server instead of the model-free one; --slot-filler model has
    the model fill the model-free team's slots."""
    from guigraph.cli.demo import show_run
    from guigraph.envs.simphone.generalize import Half
    from guigraph.envs.simphone.skins import skin_conventions
    from guigraph.eval.demo import DemoConfig
    from guigraph.eval.generalize import GeneralizeConfig, run_generalize
    from guigraph.eval.suite import MEMORIES

    try:
        skin_conventions(skin)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--skin") from exc
    check_encoder(encoder)
    half = Half.FROZEN if frozen else Half.DEV
    demo = DemoConfig(episodes=episodes, seed=seed, skin=skin, encoder=encoder)
    settings = None
    if policy is not Policy.GRAPH or slot_filler is SlotFilling.MODEL:
        settings = _model_settings(model, base_url, timeout, max_attempts, max_tokens, text_only)
    config = GeneralizeConfig(
        demo, half, policy=policy, model=settings, verify=verify,
        memories=(str(memory),) if memory is not None else MEMORIES, slot_filler=slot_filler,
    )  # fmt: skip
    show_run(
        as_json,
        lambda reporter: run_generalize(out, config, reporter, allow_frozen=frozen),
        lambda console, report: _print(console, report, out),
    )


def _model_settings(
    model: str | None, base_url: str | None, timeout: float, max_attempts: int,
    max_tokens: int | None, text_only: bool,
) -> dict[str, Any]:  # fmt: skip
    """The model's settings as saved (no key), checked against the server first: a wrong
    model name would otherwise fail every step quietly. Errors are one line, exit 2."""
    from guigraph.errors import GuigraphError
    from guigraph.eval.runner import model_settings

    tokens = {} if max_tokens is None else {"max_tokens": max_tokens}  # else the config's own
    try:
        return model_settings(
            model, base_url, 1, timeout_s=timeout, max_attempts=max_attempts,
            vision=not text_only, **tokens,
        )  # fmt: skip
    except (GuigraphError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def _print(console: Console, report: dict[str, Any], out: Path) -> None:
    from rich.table import Table

    who = "" if report["policy"] == "graph" else f", {report['policy']} policy"
    filled = report.get("slot_filler", {})
    if filled.get("filler") == "model":
        who += (
            f", model slot filler ({filled['answered']} values taken, {filled['refused']} "
            f"refused, {filled['failed_calls']} failed calls: {filled['failed_timeout']} timed "
            f"out, {filled['failed_unparsed']} not JSON)"
        )
    table = Table(title=f"Generalization benchmark, {report['half']} half{who}: SR")
    table.add_column("kind")
    table.add_column("graph", justify="right")
    table.add_column("trace", justify="right")
    table.add_column("episodes", justify="right")
    for kind, title in KIND_TITLES.items():
        rates = report[kind]
        table.add_row(
            title,
            *(f"{rates[m]['sr']:.2f}" if rates[m]["episodes"] else "-" for m in ("graph", "trace")),
            str(max(rates["graph"]["episodes"], rates["trace"]["episodes"])),
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
    if "usage" in report:
        usage = report["usage"]
        console.print(
            f"Model {report['model']['model']}: {usage['calls']} calls this run, "
            f"{usage.get('total_tokens', 0)} tokens, {usage.get('retries', 0)} retries, "
            f"{usage.get('parse_failures', 0)} replies that did not parse ({usage['file']})."
        )
