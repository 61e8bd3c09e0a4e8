"""The Android world over ADB, against the fake device: contract, observations, faults."""

from __future__ import annotations

import pytest

from guigraph.envs import check_env, make
from guigraph.envs.android import uixml
from guigraph.envs.android.env import AndroidEnv
from guigraph.envs.simphone.adb_device import SimDevice
from guigraph.envs.simphone.env import SimPhone
from guigraph.errors import EnvError
from guigraph.geometry import ScreenSize
from guigraph.testing.adb_server import FakeAdbServer
from guigraph.types import Action, ActionType


def test_check_env_passes_over_adb(adb_server: FakeAdbServer) -> None:
    env = make("android")
    task = env.make_task("tool.wifi", 1)
    check_env(lambda: make("android"), task, seed=1)


def test_the_world_sees_what_the_in_process_android_skin_sees(adb_server: FakeAdbServer) -> None:
    env = AndroidEnv()
    local = SimPhone(skin="android")
    task = env.make_task("shop.cart", 3)
    remote_obs, local_obs = env.reset(task, 3), local.reset(task, 3)
    for action in (Action.open_app("shop"), Action.click(500, 133)):
        remote_obs, local_obs = env.step(action).observation, local.step(action).observation
    assert remote_obs.elements == local_obs.elements
    assert remote_obs.png_bytes() == local_obs.png_bytes()
    assert (remote_obs.app, remote_obs.activity) == (local_obs.app, local_obs.activity)
    assert remote_obs.app == "com.simphone.shop"
    assert remote_obs.activity == "com.simphone.shop.MainActivity"
    assert remote_obs.screen == ScreenSize(360, 780)
    ids = {e.resource_id for e in remote_obs.elements or ()}
    assert "android:id/content" in ids and any(i.startswith("com.simphone.shop:id/") for i in ids)
    assert all(e.package == "com.simphone.shop" for e in remote_obs.elements or ())
    assert env.evaluate() is not None and local.evaluate() is not None


def test_the_task_is_checked_by_the_simphone_behind_adb(adb_server: FakeAdbServer) -> None:
    env = AndroidEnv()
    task = env.make_task("tool.wifi", 2)
    assert task.template_id == "tool.wifi"
    env.reset(task, 2)
    verdict = env.evaluate()
    assert verdict is not None and not verdict.success
    free = env.make_task("Turn on the flashlight", 2)
    env.reset(free, 2)
    assert env.evaluate() is None
    with pytest.raises(ValueError, match="unknown SimPhone template"):
        env.make_task("tool.wify", 2)


def test_every_action_kind_reaches_the_device(adb_server: FakeAdbServer) -> None:
    env = AndroidEnv()
    env.reset(env.make_task("Look around", 0), 0)
    device = adb_server.device
    sent = len(device.commands)
    env.step(Action.open_app("com.simphone.settings"))
    assert device.phone.view().app == "settings"
    env.step(Action.click(250, 500))
    env.step(Action.long_press(250, 500))
    env.step(Action.scroll("up"))
    env.step(Action(ActionType.PRESS_BACK))
    env.step(Action(ActionType.PRESS_RECENT))
    env.step(Action(ActionType.PRESS_HOME))
    env.step(Action(ActionType.WAIT, seconds=0.5))
    assert env.step(Action.open_app("Tunes")).observation.app == "com.simphone.music"  # a label
    acted = [c for c in device.commands[sent:] if c.split()[0] in ("input", "monkey", "sleep")]
    assert acted == [
        "monkey -p com.simphone.settings -c android.intent.category.LAUNCHER 1",
        "input tap 90.00 390.00",
        "input swipe 90.00 390.00 90.00 390.00 800",
        "input swipe 180.00 585.00 180.00 195.00 300",
        "input keyevent 4",
        "input keyevent 187",
        "input keyevent 3",
        "sleep 0.5",
        # A label no package is named after: its icon on the home screen tells the package
        # (tapped once, the home screen back), which is then opened as any package is.
        "input keyevent 3",
        "input tap 222.50 102.00",
        "input keyevent 3",
        "monkey -p com.simphone.music -c android.intent.category.LAUNCHER 1",
    ]


def test_device_choice_by_serial_or_the_only_one(monkeypatch: pytest.MonkeyPatch) -> None:
    devices = [SimDevice(serial="emulator-5554"), SimDevice(serial="emulator-5556")]
    with FakeAdbServer(devices=devices, lifetime_s=60) as server:
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
        with pytest.raises(EnvError, match=r"2 devices are attached .*emulator-5556.*--serial"):
            AndroidEnv()
        assert AndroidEnv("emulator-5556").serial == "emulator-5556"
        with pytest.raises(EnvError, match=r"no device 'nope'.*emulator-5554"):
            AndroidEnv("nope")
    with pytest.raises(EnvError, match=f"no ADB server answers at 127.0.0.1:{server.port}"):
        AndroidEnv()


def test_faults_are_step_errors_or_one_clear_env_error(adb_server: FakeAdbServer) -> None:
    env = AndroidEnv()
    env.reset(env.make_task("tool.wifi", 1), 1)
    device = adb_server.device
    result = env.step(Action.open_app("Nonexistent"))
    assert result.error is not None and "no app 'Nonexistent'" in result.error
    device.faults.add("dump-fails")
    result = env.step(Action.click(500, 500))
    assert result.error is not None and "uiautomator dump failed" in result.error
    assert result.observation.elements is None and result.observation.has_screenshot
    device.faults = {"dump-broken"}
    result = env.step(Action(ActionType.WAIT, seconds=0))
    assert result.error is not None and "not valid XML" in result.error
    device.faults = {"screencap-size"}
    with pytest.raises(EnvError, match="screenshot is 180x390 but the screen is 360x780"):
        env.step(Action(ActionType.WAIT, seconds=0))
    device.faults = {"unplugged"}
    with pytest.raises(EnvError, match="emulator-5554"):
        env.step(Action(ActionType.WAIT, seconds=0))
    device.faults = set()
    env.step(Action(ActionType.WAIT, seconds=0))
    adb_server.close()  # the cable is pulled: the server is gone
    with pytest.raises(EnvError, match="is gone"):
        env.step(Action(ActionType.WAIT, seconds=0))


def test_parsers_read_what_devices_print() -> None:
    assert uixml.wm_size("Physical size: 1080x2400\n") == ScreenSize(1080, 2400)
    both = "Physical size: 1080x2400\nOverride size: 720x1600\n"
    assert uixml.wm_size(both) == ScreenSize(720, 1600)
    assert uixml.rotation("    SurfaceOrientation: 1\n") == 1
    assert uixml.rotation("mCurrentRotation=ROTATION_270") == 3
    window = "  mCurrentFocus=Window{2b1 u0 com.android.chrome/org.chromium.chrome.browser.Main}"
    assert uixml.foreground(window) == ("com.android.chrome", "org.chromium.chrome.browser.Main")
    short = "  topResumedActivity=ActivityRecord{9d u0 com.example/.Home t3}"
    assert uixml.foreground("", short) == ("com.example", "com.example.Home")
    with pytest.raises(EnvError, match="no screen size"):
        uixml.wm_size("error: no display")
    with pytest.raises(EnvError, match="no UI hierarchy"):
        uixml.parse_hierarchy(
            "ERROR: null root node returned by UiTestAutomationBridge.", ScreenSize(10, 10)
        )
