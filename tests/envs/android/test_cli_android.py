"""The Android commands end to end: ``guigraph record`` stopped by Ctrl-C keeps its episode;
a device pulled mid-run is one clear error."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.data.odyssey import OdysseyDataset
from guigraph.testing.adb_server import FakeAdbServer
from guigraph.types import ActionType

runner = CliRunner()
GUIGRAPH = [sys.executable, "-c", "from guigraph.cli.main import main; main()"]


def _foregrounds_read(device: Any) -> list[str]:
    """The foreground app each time anyone asks for it (the last read of an observation)."""
    apps: list[str] = []
    foreground = device.foreground

    def counted() -> tuple[str, str]:
        package, activity = foreground()
        apps.append(package)
        return package, activity

    device.foreground = counted
    return apps


def _wait_for_capture(apps: list[str], app: str, timeout: float = 60.0) -> None:
    """Until the recorder reads the screen of ``app`` (however loaded the machine is)."""
    seen, deadline = len(apps), time.monotonic() + timeout
    while app not in apps[seen:] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert app in apps[seen:], f"the recorder never captured {app}'s screen"


def _restore_sigint() -> None:
    """What an interactive shell gives a command: SIGINT handled by default, even when the
    test run itself was launched with it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _ignore_sigint() -> None:
    """What a non-interactive shell does to a command started with `&` (and nohup, and some CI
    launchers): the child inherits SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("stop_with", "launched"),
    [(signal.SIGINT, "interactive"), (signal.SIGINT, "sigint-ignored"), (signal.SIGTERM, "")],
)
def test_record_until_ctrl_c_keeps_the_episode(
    adb_server: FakeAdbServer, tmp_path: Path, stop_with: signal.Signals, launched: str
) -> None:
    device = adb_server.device
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(adb_server.port)}
    args = ["record", "--env", "android", "--serial", "emulator-5554", "--instruction",
            "Open the settings", "--out", str(tmp_path / "rec")]  # fmt: skip
    # stderr is read too: the recorder's own messages reach the failure report, and never wait
    # on a pipe nobody reads.
    preexec = _ignore_sigint if launched == "sigint-ignored" else _restore_sigint
    proc = subprocess.Popen(
        [*GUIGRAPH, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=preexec,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not device._listeners and time.monotonic() < deadline:  # getevent is read
            time.sleep(0.05)
        assert device._listeners, "the recorder never read getevent"
        captured = _foregrounds_read(device)
        time.sleep(0.5)
        device.perform({"tap": (138.0, 360.0)})  # the Settings icon
        _wait_for_capture(captured, "com.simphone.settings")  # the screen the tap led to
        device.perform({"key": "BACK"})
        _wait_for_capture(captured, "com.android.launcher3")
        proc.send_signal(stop_with)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, out + err
    assert "3 actions (click, press_back, complete)" in out
    data = OdysseyDataset(tmp_path / "rec")
    [episode_id] = data.episode_ids("random", "train")
    episode = data.load(episode_id)
    assert episode.instruction == "Open the settings"
    assert [a.type for a in episode.actions] == [
        ActionType.CLICK, ActionType.PRESS_BACK, ActionType.COMPLETE
    ]  # fmt: skip
    assert episode.steps[1].observation.app == "com.simphone.settings"
    assert episode.device.width == 360 and episode.device.name == "Pixel 7 Pro"


def test_a_device_unplugged_mid_run_is_one_clear_error(adb_server: FakeAdbServer) -> None:
    adb_server.device.unplug_after = 14  # after the reset, during the first step
    result = runner.invoke(app, ["run", "--env", "android", "--task", "tool.wifi"])
    assert result.exit_code == 2, result.output
    assert "error: device emulator-5554 is gone (unplugged?)" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("fault", ["dump-fails", "dump-broken"])
def test_a_failing_dump_is_fed_back_and_the_run_goes_on(
    adb_server: FakeAdbServer, fault: str
) -> None:
    adb_server.device.faults.add(fault)
    result = runner.invoke(app, ["run", "--env", "android", "--task", "tool.wifi",
                                 "--max-steps", "3"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "success: no (the world's checker)" in result.output
