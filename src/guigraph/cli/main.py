"""Entry point of the ``guigraph`` command.

Command modules are imported here and each registers its commands on ``app``. They import
heavy dependencies inside the command functions, so ``guigraph --help`` works on a bare install.
"""

from __future__ import annotations

import importlib

import typer

from guigraph import __version__
from guigraph.cli.guard import GuardedGroup

app = typer.Typer(
    name="guigraph",
    help="GUI agents that learn a workflow graph from recorded executions and use it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=GuardedGroup,
)

#: Modules that define a ``register(app)`` function; order is the order of ``--help``.
COMMAND_MODULES: tuple[str, ...] = (
    "guigraph.cli.demo",
    "guigraph.cli.run",
    "guigraph.cli.data",
    "guigraph.cli.importer",
    "guigraph.cli.score",
    "guigraph.cli.build",
    "guigraph.cli.kb",
    "guigraph.cli.model",
    "guigraph.cli.sim",
    "guigraph.cli.web",
    "guigraph.cli.replay",
    "guigraph.cli.eval",
    "guigraph.cli.report",
    "guigraph.cli.devices",
    "guigraph.cli.record",
    "guigraph.cli.workflow",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"guigraph {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """GUI agents that learn a workflow graph from recorded executions and use it."""


for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def main() -> None:
    app()
