"""``--encoder``: the text encoder a new knowledge base is built with (``build``, ``demo``,
``eval generalize``), and the check every one of them makes before any work."""

from __future__ import annotations

from typing import Annotated

import typer

from guigraph.graph.settings import DEFAULT_ENCODER

#: The option as the demo-like commands take it (``build`` words its own help).
KBEncoder = Annotated[
    str,
    typer.Option(
        "--encoder",
        help="Text encoder of the KB: hashing[:DIM] (default, no extra), minilm, "
        "model2vec[:DIMS] (extra embed) or st:MODEL. A folder keeps the one it was made with.",
    ),
]


def check_encoder(spec: str) -> None:
    """Refuse a bad ``--encoder`` spec, or one whose extra is missing, in one line (exit 2)
    before any work: a real model is loaded only when the KB first encodes, which may be
    after logs are recorded or at the first retrieval."""
    from guigraph.embed import encoder_from_spec
    from guigraph.errors import GuigraphError

    if spec == DEFAULT_ENCODER:
        return
    try:
        encoder_from_spec(spec).encode(["probe"])
    except GuigraphError as exc:
        typer.echo(f"error: --encoder {spec}: {exc}", err=True)
        raise typer.Exit(2) from exc
