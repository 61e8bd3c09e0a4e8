"""Recording a person at the desktop: real input events (XTEST, through xdotool) on the
world's display become an episode that ``guigraph build`` reads; Ctrl-C or SIGTERM keeps it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs.desktop.env import DesktopEnv
from guigraph.envs.desktop.experts import Person
from guigraph.envs.desktop.processes import tagged_pids
from guigraph.envs.desktop.recorder import DesktopRecorder
from guigraph.envs.desktop.xinput import Keyboard
from guigraph.types import Action, ActionType

pytestmark = pytest.mark.slow


def test_a_hesitating_person_is_recorded_as_the_workflow(
    desktop: DesktopEnv, tmp_path: Path
) -> None:
    task = desktop.make_task("mousepad/replace-word", 5)
    recorder = DesktopRecorder(desktop, "", task.instruction, tmp_path, task=task)
    stop = threading.Event()
    failures: list[BaseException] = []

    def person() -> None:
        try:
            assert recorder.ready.wait(60)
            assert desktop.session is not None
            session = desktop.session
            Person(desktop.display.name, session.env(), session.bus_address, 2.0, True).perform(
                task
            )
            time.sleep(1.0)
        except BaseException as exc:  # the test reports it
            failures.append(exc)
        finally:
            stop.set()

    thread = threading.Thread(target=person)
    thread.start()
    recording = recorder.run(stop)
    thread.join()
    assert not failures, failures
    verdict = desktop.evaluate()
    assert verdict is not None and verdict.success, verdict
    p = task.params
    assert [a.to_dict() for a in recording.actions if a.type is not ActionType.CLICK] == [
        Action.key_chord("ctrl+r").to_dict(), Action.type_text(p["old"]).to_dict(),
        Action.type_text(p["new"]).to_dict(),  # mistyped, corrected: the text as it stood
        Action.key_chord("ctrl+s").to_dict(), Action(ActionType.COMPLETE).to_dict(),
    ]  # fmt: skip
    assert [a.type for a in recording.actions].count(ActionType.CLICK) == 4
    episode = _only_episode(tmp_path)
    assert episode.instruction == task.instruction and episode.apps == ("mousepad",)
    screens = [s.observation for s in episode.steps]
    assert screens[0].activity == "frame" and screens[2].activity == "dialog/Find and Replace"
    assert all(s.has_screenshot and s.elements for s in screens)
    typed_new = episode.steps[3]
    assert typed_new.action.text == p["new"]
    assert any(e.focused and e.editable for e in typed_new.observation.elements or ())


def test_the_record_command_keeps_the_episode_on_sigterm(tmp_path: Path) -> None:
    out = tmp_path / "logs"
    guigraph = Path(sys.executable).with_name("guigraph")
    proc = subprocess.Popen(
        [str(guigraph), "record", "--env", "desktop", "--app", "mousepad", "--instruction",
         "Write hello and save it as hello.txt", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("recording on display :"), line + proc.stderr.read()
        display = line.split()[3]
        keyboard = Keyboard(display, dict(os.environ))
        for act in (
            lambda: keyboard.type("hello"), lambda: keyboard.key(("ctrl", "s")),
            lambda: keyboard.type("hello.txt\n"),
        ):  # fmt: skip
            time.sleep(1.2)
            act()
        time.sleep(1.5)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    assert "3 actions" in stdout or "4 actions" in stdout, stdout
    episode = _only_episode(out)
    assert [a.to_dict() for a in episode.actions] == [
        Action.type_text("hello").to_dict(), Action.key_chord("ctrl+s").to_dict(),
        Action.type_text("hello.txt\n").to_dict(), Action(ActionType.COMPLETE).to_dict(),
    ]  # fmt: skip
    assert tagged_pids(f"{proc.pid}-0") == []  # the world of the command ended with it


def _only_episode(folder: Path):  # type: ignore[no-untyped-def]
    data = OdysseyDataset(folder)
    [episode_id] = data.episode_ids("random", "train")
    return data.load(episode_id)
