"""A damaged knowledge base: clear one-line errors naming the file, and a rebuilt cache."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.graph.from_logs import build_from_logs
from guigraph.graph.kb import DB_FILE, STATES_INDEX_FILE, KnowledgeBase
from tests.graph.conftest import make_recorders, write_logs

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("faults")
    logs = write_logs(root / "logs", make_recorders(), test_ids=("s05",))
    build_from_logs(logs, root / "kb")
    return logs, root / "kb"


@pytest.fixture
def kb_copy(built: tuple[Path, Path], tmp_path: Path) -> Path:
    return Path(shutil.copytree(built[1], tmp_path / "kb"))


def _garbage(db: Path) -> None:
    db.write_bytes(b"this is not a database at all\n" * 200)


def _truncated(db: Path) -> None:
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 3])


def _commands(logs: Path, kb: Path, tmp: Path) -> list[list[str]]:
    return [
        ["kb", "stats", str(kb)],
        ["kb", "export", str(kb), "--out", str(tmp / "g.json")],
        ["kb", "check", str(kb), "--truth", str(logs)],
        ["retrieve", str(kb), "search the weather"],
        ["run", "--task", "tool.wifi", "--kb", str(kb)],
        ["replay", str(logs), "--kb", str(kb), "--out", str(tmp / "steps.jsonl")],
        ["build", str(logs), "--kb", str(kb)],
    ]


@pytest.mark.parametrize("damage", [_garbage, _truncated])
def test_every_command_names_a_damaged_kb_sqlite(
    built: tuple[Path, Path], kb_copy: Path, tmp_path: Path, damage
) -> None:
    damage(kb_copy / DB_FILE)
    for args in _commands(built[0], kb_copy, tmp_path):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output, result.exception)
        assert isinstance(result.exception, SystemExit), (args, result.exception)
        assert str(kb_copy / DB_FILE) in result.output, (args, result.output)
        assert "Traceback" not in result.output


def test_a_garbage_state_index_is_rebuilt_from_sqlite(
    kb_copy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with KnowledgeBase.open(kb_copy) as kb:
        want = len(kb.state_index.node_ids)
    (kb_copy / STATES_INDEX_FILE).write_bytes(b"\x00garbage" * 100)
    with caplog.at_level(logging.WARNING), KnowledgeBase.open(kb_copy) as kb:
        assert len(kb.state_index.node_ids) == want
        node = kb.nodes()[0]
    assert STATES_INDEX_FILE in caplog.text and "rebuilt" in caplog.text
    assert node.node_id in kb.state_index.node_ids
