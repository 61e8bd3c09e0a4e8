"""``guigraph demo``: the main job on the embedded default (simulated phone, model-free agents)."""

from __future__ import annotations

import typer

PLAN = """\
The demo runs the whole pipeline on the embedded default, with no device and no model:
  1. record SimPhone logs with some task templates held out,
  2. build the workflow-graph knowledge base from their train split,
  3. run the model-free agent team on held-out instances of seen templates, on held-out
     templates and on another device profile, with the graph and with the trace baseline,
  4. print success rate per category (and AMS on the logs' test split).
"""


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo() -> None:
    """Run the whole pipeline on the simulated phone with model-free agents."""
    typer.echo(PLAN)
    typer.echo(
        "Not available yet: the simulated phone, the graph builder and the agent team are "
        "still being built (see the project's open issues). Nothing was run."
    )
