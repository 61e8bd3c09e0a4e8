"""Options shared by commands that can drive the model team (``run``, ``replay``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from guigraph.choices import History, Memory, Policy, SlotFilling, TeamDesign, Verify

if TYPE_CHECKING:
    from guigraph.llm.config import RoleModels

PolicyOption = Annotated[
    Policy, typer.Option("--policy", help="Who acts: graph (no model), model or hybrid.")
]
TeamOption = Annotated[
    TeamDesign,
    typer.Option(
        "--team",
        help="The model team (--policy model): guigraph (planners, decider, verifier, outcome "
        "check) or mga (a semantic planner, a grounding step, a memory verifying each action).",
    ),
]
SlotFillerOption = Annotated[
    SlotFilling,
    typer.Option(
        "--slot-filler",
        help="Who fills the recorded slots for the graph policy: rule (no model) or model "
        "(one structured call per task, checked by the slot types; the rules where refused).",
    ),
]
MemoryOption = Annotated[
    Memory,
    typer.Option("--memory", help="graph (the workflow graph), or trace (linear-memory baseline)."),
]
VerifyOption = Annotated[
    Verify,
    typer.Option("--verify", help="Verifier: always, never, or adaptive (model policies only)."),
]
HistoryOption = Annotated[
    History, typer.Option("--history", help="Steps so far as a narrative, or atomic actions.")
]
Model = Annotated[
    str | None, typer.Option("--model", help="Model name, for --policy model|hybrid.")
]
BaseUrl = Annotated[
    str | None,
    typer.Option("--base-url", help="OpenAI-compatible server, for --policy model|hybrid."),
]
ModelConfigFile = Annotated[
    Path | None,
    typer.Option(
        "--model-config",
        help="Per-role model settings, JSON or TOML (see docs/models.md: model settings).",
    ),
]
TextOnly = Annotated[
    bool,
    typer.Option(
        "--text-only", help="Send no image: every role reads the screen as UI-tree (or OCR) text."
    ),
]
AllowOrigin = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-origin",
        help="Web: another place the run may visit besides the task's own origin "
        "(https://host[:port], host, *.host, * for any site, file:///folder/; repeatable).",
    ),
]


def allowed_origins(env: str, origins: list[str] | None) -> list[str]:
    """``--allow-origin`` values for the web world's ``allow_origins`` (no other world has
    any): each checked before a browser starts. None given: none (the task's origin only)."""
    if not origins:
        return []
    if env != "web":
        raise ValueError(f"--allow-origin widens where a web run may go; the {env} world has none")
    from guigraph.envs.web.origins import parse_rule

    for origin in origins:
        parse_rule(origin)  # a malformed one is refused before a browser starts
    return origins


Timeout = Annotated[
    float | None, typer.Option("--timeout", min=0.001, help="Seconds per model request.")
]
MaxTokens = Annotated[
    int | None, typer.Option("--max-tokens", min=1, help="Reply token limit per request.")
]
Retries = Annotated[
    int | None, typer.Option("--retries", min=0, help="Retries after a failed request.")
]
Coords = Annotated[
    str | None,
    typer.Option("--coords", help="Model coordinate space: qwen3-vl, qwen2.5-vl, ui-tars, pixel."),
]
Structured = Annotated[
    str | None,
    typer.Option("--structured", help="Structured output: auto, json_schema, json_object, none."),
]
ModelSet = Annotated[
    list[str] | None,
    typer.Option(
        "--model-set", help="[ROLE.]FIELD=VALUE, e.g. decider.max_tokens=128 (repeatable)."
    ),
]


def role_models(
    model: str | None,
    base_url: str | None,
    config_file: Path | None,
    text_only: bool,
    timeout: float | None,
    max_tokens: int | None,
    retries: int | None,
    coords: str | None,
    structured: str | None,
    sets: list[str] | None,
) -> RoleModels:
    """The per-role model settings the command line asks for (``ConfigError`` if wrong)."""
    from guigraph.llm.model_file import ModelFlags
    from guigraph.llm.model_file import role_models as build

    flags = ModelFlags(
        model=model, base_url=base_url, config_file=config_file, text_only=text_only,
        timeout_s=timeout, max_tokens=max_tokens, retries=retries, coords=coords,
        structured=structured, sets=tuple(sets or ()),
    )  # fmt: skip
    return build(flags)
