"""``guigraph model check``: can guigraph talk to this model server, and does it answer well?"""

from __future__ import annotations

from typing import Annotated

import typer

model_app = typer.Typer(help="Model servers (vLLM, Ollama, OpenAI).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(model_app, name="model")


@model_app.command("check")
def check(
    base_url: Annotated[
        str, typer.Option(help="Server URL ending in /v1; default $OPENAI_BASE_URL.")
    ] = "",
    model: Annotated[str, typer.Option(help="Served model name; default $GUIGRAPH_MODEL.")] = "",
    coords: Annotated[
        str, typer.Option(help="Model coordinate space: qwen3-vl, qwen2.5-vl, ui-tars, pixel.")
    ] = "qwen3-vl",
    timeout: Annotated[float, typer.Option(help="Seconds per request.")] = 60.0,
) -> None:
    """Send one text and one image request; print latency, token usage and whether it parsed."""
    from guigraph.errors import ConfigError
    from guigraph.llm.check import check_model
    from guigraph.llm.config import ModelConfig

    try:
        config = ModelConfig(model=model, base_url=base_url, coords=coords, timeout_s=timeout)
        config = config.resolved()
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"model {config.model!r} at {config.base_url}")
    results = check_model(config)
    for result in results:
        if not result.ok:
            typer.echo(f"{result.name}: FAILED: {result.detail}", err=True)
            continue
        verdict = "parsed" if result.parsed else "did NOT parse"
        typer.echo(
            f"{result.name}: {result.latency_s * 1000:.0f} ms, tokens {result.prompt_tokens} in"
            f" / {result.completion_tokens} out, reply {verdict}: {result.detail}"
        )
    if not all(r.ok for r in results):
        raise typer.Exit(1)
