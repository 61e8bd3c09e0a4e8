"""Options shared by commands that can drive the model team (``run``, ``replay``)."""

from __future__ import annotations

from typing import Annotated

import typer

Policy = Annotated[
    str, typer.Option("--policy", help="Who acts: graph (no model), model or hybrid.")
]
Model = Annotated[
    str | None, typer.Option("--model", help="Model name, for --policy model|hybrid.")
]
BaseUrl = Annotated[
    str | None,
    typer.Option("--base-url", help="OpenAI-compatible server, for --policy model|hybrid."),
]
