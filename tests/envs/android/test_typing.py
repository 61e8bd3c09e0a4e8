"""Typing over ADB: text reaches the device shell quoted, byte for byte, and never runs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guigraph.envs.android.env import AndroidEnv
from guigraph.envs.android.text_input import input_text_commands, needs_adb_keyboard
from guigraph.envs.simphone.adb_commands import _device_text
from guigraph.envs.simphone.adb_device import _split_commands
from guigraph.testing.adb_server import FakeAdbServer
from guigraph.types import Action, Task

NASTY = {
    "; rm -rf /": ["input text ';%srm%s-rf%s/'"],
    "`reboot`": ["input text '`reboot`'"],
    "$(reboot) && ls | cat": ["input text '$(reboot)%s&&%sls%s|%scat'"],
    'it\'s "quoted"': ["input text 'it'\"'\"'s%s\"quoted\"'"],
    "100%sure": ["input text 100%", "input text sure"],
    "a % b": ["input text a%s%%sb"],
    "*.txt > /sdcard/x": ["input text '*.txt%s>%s/sdcard/x'"],
    "line one\nline two": ["input text line%sone", "input keyevent 66", "input text line%stwo"],
}


@pytest.mark.parametrize("text", sorted(NASTY))
def test_input_text_commands_quote_every_metacharacter(text: str) -> None:
    assert input_text_commands(text) == NASTY[text]


def _url_field(env: AndroidEnv) -> None:
    env.reset(Task("free/1", "type things"), 1)
    assert env.step(Action.open_app("browser")).error is None
    assert env.step(Action.click(500, 133)).error is None  # the URL field


@pytest.mark.parametrize("text", [t for t in sorted(NASTY) if "\n" not in t])
def test_what_reaches_the_device_shell_is_the_quoted_text_and_nothing_runs(
    adb_server: FakeAdbServer, text: str
) -> None:
    env = AndroidEnv()
    _url_field(env)
    device = adb_server.device
    sent, ran = len(device.commands), len(device.executed)
    result = env.step(Action.type_text(text))
    assert result.error is None
    typing = [c for c in device.commands[sent:] if c.startswith("input")]
    assert typing == NASTY[text]  # byte for byte what the device shell received
    programs = [argv[0] for argv in device.executed[ran:]]
    assert set(programs) <= {"input", "screencap", "uiautomator", "cat", "dumpsys"}, programs
    assert device.phone.world.field("url") == text  # typed as given, all of it


def test_newlines_are_the_enter_key(adb_server: FakeAdbServer) -> None:
    env = AndroidEnv()
    _url_field(env)
    device = adb_server.device
    sent = len(device.commands)
    env.step(Action.type_text("line one\nline two"))
    typing = [c for c in device.commands[sent:] if c.startswith("input")]
    assert typing == NASTY["line one\nline two"]


def test_non_ascii_needs_adbkeyboard_and_goes_through_its_broadcast(
    adb_server: FakeAdbServer,
) -> None:
    assert needs_adb_keyboard("8°C") and not needs_adb_keyboard("8 C")
    env = AndroidEnv()
    _url_field(env)
    result = env.step(Action.type_text("Zürich 東京"))
    assert result.error is not None and "ADBKeyboard" in result.error
    adb_server.device.adb_keyboard = True
    sent = len(adb_server.device.commands)
    assert env.step(Action.type_text("Zürich 東京; rm -rf /")).error is None
    assert adb_server.device.phone.world.field("url") == "Zürich 東京; rm -rf /"
    said = adb_server.device.commands[sent:]
    assert "ime set com.android.adbkeyboard/.AdbIME" in said
    assert any(c.startswith("am broadcast -a ADB_INPUT_B64 --es msg ") for c in said)
    restore = [i for i, c in enumerate(said) if c.startswith("ime set com.google")]
    assert restore and restore[0] > said.index("ime set com.android.adbkeyboard/.AdbIME")
    assert {argv[0] for argv in adb_server.device.executed} <= {
        "getprop",
        "guigraph-reset",
        "wm",
        "dumpsys",
        "screencap",
        "uiautomator",
        "cat",
        "monkey",
        "pm",
        "input",
        "ime",
        "settings",
        "am",
    }


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.just("\n")))
def test_any_ascii_text_types_back_exactly_and_runs_nothing_else(text: str) -> None:
    typed = ""
    for command in input_text_commands(text):
        programs = _split_commands(command)  # what the device's sh -c would run
        assert len(programs) == 1 and programs[0][:2] in (["input", "text"], ["input", "keyevent"])
        argv = programs[0]
        assert len(argv) == 3, argv
        typed += _device_text(argv[2]) if argv[1] == "text" else "\n"
    assert typed == text


def test_the_fake_shell_reads_commands_as_sh_does() -> None:
    assert _split_commands("input text '&'") == [["input", "text", "&"]]
    assert _split_commands("input text a;rm -rf /") == [["input", "text", "a"], ["rm", "-rf", "/"]]
    assert _split_commands("echo `id`")[0][0] == "<command substitution>"
    assert _split_commands('echo "$(id)"')[0][0] == "<command substitution>"
    assert _split_commands("echo '$(id)'") == [["echo", "$(id)"]]
    assert _split_commands("a | b > c") == [["a"], ["b"], ["c"]]


@pytest.mark.parametrize("keyboard", [False, True], ids=["input-text", "adb-keyboard"])
def test_a_nul_or_other_control_character_is_a_step_error(
    adb_server: FakeAdbServer, keyboard: bool
) -> None:
    adb_server.device.adb_keyboard = keyboard
    env = AndroidEnv()
    _url_field(env)
    for text in ("a\x00b", "\x1b[2J"):
        result = env.step(Action.type_text(text))
        assert result.error and "control character" in result.error, result.error
    assert env.step(Action.type_text("still here")).error is None  # the device lives on
    assert adb_server.device.phone.world.field("url") == "still here"


def test_the_device_dumps_a_field_that_holds_a_nul(adb_server: FakeAdbServer) -> None:
    """uiautomator writes a character XML cannot hold as "." (a person typed it)."""
    device = adb_server.device
    env = AndroidEnv()
    _url_field(env)
    device.act(Action.type_text("a\x00b"))
    observation, problem = env.observe()
    assert problem is None and any(e.text == "a.b" for e in observation.elements or ())
