import subprocess
import sys

from typer.testing import CliRunner

from guigraph import __version__
from guigraph.cli.main import app

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
    code = (
        "import sys, guigraph.cli.main as m\n"
        "heavy = {'openai', 'torch', 'faiss', 'sklearn', 'playwright', 'miniwob', 'adbutils',\n"
        "         'ray', 'matplotlib'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
