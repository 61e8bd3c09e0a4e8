"""The desktop suite's tasks as data: seeded, values split for new-value tests, checked on the
files a home folder holds (no display needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from guigraph.envs.desktop import entries, tasks, xinput
from guigraph.errors import EnvError


@pytest.mark.parametrize("template_id", sorted(tasks.TEMPLATES))
def test_tasks_are_seeded_and_new_values_are_unseen(template_id: str) -> None:
    first, again = tasks.make(template_id, 4), tasks.make(template_id, 4)
    assert first == again and first is not None
    for value in first.params.values():
        assert value in first.instruction or value not in first.instruction  # params are data
    dev = {tuple(sorted(tasks.make(template_id, s).params.items())) for s in range(30)}  # type: ignore[union-attr]
    new = {
        tuple(sorted(tasks.make(template_id, s, new_values=True).params.items())) for s in range(30)
    }  # type: ignore[union-attr]
    assert len(dev) > 3 and not dev & new


def test_the_checker_reads_the_files(tmp_path: Path) -> None:
    task = tasks.make("mousepad/replace-word", 2)
    assert task is not None
    opens = tasks.prepare(task, tmp_path)
    name = task.params["name"]
    assert opens == {"mousepad": (str(tmp_path / name),)}
    original = (tmp_path / name).read_text()
    assert task.params["old"] in original
    verdict = tasks.check(task, tmp_path)
    assert verdict is not None and not verdict.success and "holds" in verdict.detail
    (tmp_path / name).write_text(original.replace(task.params["old"], task.params["new"]))
    assert tasks.check(task, tmp_path) == tasks.Evaluation(True, 1.0, verdict_detail())
    assert tasks.make("free words", 0) is None
    with pytest.raises(EnvError, match="unknown desktop task 'mousepad/nothing'"):
        tasks.template("mousepad/nothing")


def verdict_detail() -> str:
    return "every file holds what the task asked"


def test_desktop_entries_name_apps_as_a_menu_does(tmp_path: Path) -> None:
    (tmp_path / "org.example.pad.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Pad\nExec=pad --new %U\n"
    )
    (tmp_path / "org.example.pad-settings.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Pad Settings\nExec=pad --prefs\n"
    )
    (tmp_path / "link.desktop").write_text("[Desktop Entry]\nType=Link\nURL=x\n")
    found = entries.installed([tmp_path])
    assert sorted(e.file_id for e in found) == ["org.example.pad", "org.example.pad-settings"]
    assert entries.find("pad", found).command == ("pad", "--new")
    assert entries.find("PAD SETTINGS", found).file_id == "org.example.pad-settings"
    with pytest.raises(EnvError, match=r"installed: Pad, Pad Settings"):
        entries.find("gimp", found)


def test_key_chords_become_keysyms() -> None:
    assert [xinput.keysym(k) for k in ("ctrl", "enter", "page_down", "f5", "s", "+")] == [
        "ctrl", "Return", "Next", "F5", "s", "plus",
    ]  # fmt: skip
