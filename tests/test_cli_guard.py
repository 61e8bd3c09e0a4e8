"""Every command ends cleanly: Ctrl-C and guigraph's own errors never show a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.errors import KnowledgeBaseError

runner = CliRunner()


def _interrupt(*_: object, **__: object) -> None:
    raise KeyboardInterrupt


def test_ctrl_c_says_how_to_resume_and_exits_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("guigraph.data.check.check_dataset", _interrupt)
    result = runner.invoke(app, ["data", "check", str(tmp_path)])
    assert result.exit_code == 130
    assert "interrupted; run again to resume" in result.output
    assert isinstance(result.exception, SystemExit)


def test_ctrl_c_in_the_console_script_exits_130_without_traceback(tmp_path: Path) -> None:
    code = (
        "import sys, guigraph.data.check as c, guigraph.cli.main as m\n"
        "def stop(*a, **k): raise KeyboardInterrupt\n"
        "c.check_dataset = stop\n"
        f"sys.argv = ['guigraph', 'data', 'check', {str(tmp_path)!r}]\n"
        "m.main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 130
    assert "interrupted; run again to resume" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_guigraph_error_that_escapes_a_command_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*_: object, **__: object) -> None:
        raise KnowledgeBaseError(f"{tmp_path}/kb.sqlite: broken")

    monkeypatch.setattr("guigraph.data.check.check_dataset", fail)
    result = runner.invoke(app, ["data", "check", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {tmp_path}/kb.sqlite: broken"


def test_an_os_error_is_one_line_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*_: object, **__: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / "out.jsonl"))

    monkeypatch.setattr("guigraph.data.check.check_dataset", fail)
    result = runner.invoke(app, ["data", "check", str(tmp_path)])
    assert result.exit_code == 2
    assert str(tmp_path / "out.jsonl") in result.output and "Traceback" not in result.output
