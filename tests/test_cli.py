from typer.testing import CliRunner

from guigraph import __version__
from guigraph.cli.main import app
from tests.fresh_imports import packages_imported

runner = CliRunner()


def test_help_lists_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "demo" in result.output


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output


def test_import_and_help_need_no_heavy_dependency() -> None:
    """`import guigraph` and `guigraph --help` must not import optional or heavy packages."""
    heavy = {"openai", "torch", "faiss", "sklearn", "playwright", "miniwob", "adbutils", "ray"}
    assert packages_imported("import guigraph.cli.main", heavy | {"matplotlib"}) == []
