"""The other names of a knowledge base's apps (a label's package, as a device told it): kept
across runs, written only when new, refused clearly when broken, never a crash of the run."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from guigraph.agents.team import app_name_memory
from guigraph.errors import KnowledgeBaseError
from guigraph.graph.kb import APP_NAMES_SETTING, DB_FILE, KnowledgeBase


def test_names_are_kept_once_each_and_survive_reopening(tmp_path: Path) -> None:
    with KnowledgeBase.create(tmp_path / "kb") as kb:
        assert kb.app_names() == {}
        assert kb.remember_app_names({"Settings": "com.android.settings", "Home": "Home"})
        assert not kb.remember_app_names({"Settings": "com.android.settings"})  # nothing new
        # Another phone names it otherwise: both are kept, the first learned first.
        assert kb.remember_app_names({"Settings": "com.simphone.settings"})
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert kb.app_names() == {"Settings": ("com.android.settings", "com.simphone.settings")}


def test_a_broken_record_is_named_with_its_file_and_field(tmp_path: Path) -> None:
    KnowledgeBase.create(tmp_path / "kb").close()
    with sqlite3.connect(tmp_path / "kb" / DB_FILE) as db:
        db.execute("INSERT INTO settings VALUES (?, ?)", (APP_NAMES_SETTING, "[1, 2"))
    with KnowledgeBase.open(tmp_path / "kb") as kb, pytest.raises(KnowledgeBaseError) as caught:
        kb.app_names()
    assert str(tmp_path / "kb" / DB_FILE) in str(caught.value)
    assert APP_NAMES_SETTING in str(caught.value)


def test_a_kb_that_cannot_be_written_keeps_nothing_and_the_run_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    KnowledgeBase.create(tmp_path / "kb").close()
    kb = KnowledgeBase.open(tmp_path / "kb")
    kb.conn.close()
    kb.conn = sqlite3.connect(f"file:{tmp_path / 'kb' / DB_FILE}?mode=ro", uri=True)
    aliases, remember = app_name_memory(kb)
    assert aliases == {}
    with caplog.at_level(logging.WARNING):
        assert remember({"Tunes": "com.simphone.music"}) is False
        assert remember({"Tunes": "com.simphone.music"}) is False
    warnings = [r for r in caplog.records if "other names were not kept" in r.getMessage()]
    assert len(warnings) == 1  # said once
    assert kb.app_names() == {}
    kb.conn.close()
