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
    max_tokens: Annotated[int, typer.Option(help="Reply token limit per request.")] = 256,
    text_only: Annotated[
        bool,
        typer.Option("--text-only", help="Send no image: the screen probe lists elements as text."),
    ] = False,
    structured: Annotated[
        str,
        typer.Option(help="Structured output: auto, json_schema, json_object or none."),
    ] = "auto",
) -> None:
    """Send one text and one screen request; print latency, token usage and whether it parsed.

    Exits 1 when a request fails or a reply does not parse, 2 on bad settings.
    """
    from guigraph.errors import ConfigError
    from guigraph.llm import structured as forms
    from guigraph.llm.check import check_model, passed
    from guigraph.llm.config import ModelConfig

    try:
        config = ModelConfig(
            model=model, base_url=base_url, coords=coords, timeout_s=timeout,
            max_tokens=max_tokens, vision=not text_only, structured=structured,
        ).resolved()  # fmt: skip
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    import logging

    mode = "text only" if text_only else "text and image"
    typer.echo(f"model {config.model!r} at {config.base_url} ({mode})")
    # Each probe's line says what happened; the client's retry warnings would say it twice.
    logger = logging.getLogger("guigraph.llm")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        results = check_model(config)
    finally:
        logger.setLevel(level)
    for result in results:
        if result.no_vision:
            typer.echo(f"{result.name}: {result.detail}", err=True)
            continue
        if not result.ok:
            typer.echo(f"{result.name}: FAILED: {result.detail}", err=True)
            continue
        verdict = "parsed" if result.parsed else "did NOT parse"
        typer.echo(
            f"{result.name}: {result.latency_s * 1000:.0f} ms, tokens {result.prompt_tokens} in"
            f" / {result.completion_tokens} out, reply {verdict}: {result.detail}"
        )
    form = forms.detected(config)
    if form is not None:
        typer.echo(f"structured output: {form} (set with structured: in a model-config file)")
    if not passed(results):
        raise typer.Exit(1)
