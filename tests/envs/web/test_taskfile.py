"""Task files users write: typed parameters drawn by the seed, checks without Python, errors that
name the line and the field; `guigraph run --env web --tasks FILE` on a real (local) site."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.envs.web import taskfile
from guigraph.errors import ConfigError

from .conftest import pids_of_process
from .site import serve

runner = CliRunner()

GOOD = """\
[params]
base = { type = "url", default = "http://127.0.0.1:9" }
password = { type = "secret", env = "TEST_SITE_PASSWORD" }

[tasks.log_in]
start_url = "{base}/login"
instructions = ["Log in as {user}", "Sign in with the account {user}"]
params.user = { pool = ["olga", "hiro", "dana"] }
params.count = { type = "int", range = [2, 9] }

[[tasks.log_in.checks]]
url = "{base}/done*"

[[tasks.log_in.checks]]
text = "Welcome back"

[[tasks.log_in.checks]]
element = "h1"

[[tasks.log_in.checks]]
text = "Wrong password"
present = false

[[tasks.log_in.checks]]
http_get = "{base}/done"
contains = "logged in"

[[tasks.log_in.checks]]
command = ["echo", "user {user} is in"]
contains = "{user} is in"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tasks.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_parameters_are_drawn_by_the_seed_and_secrets_never_reach_the_task(
    tmp_path: Path,
) -> None:
    tasks = taskfile.load(_write(tmp_path, GOOD))
    first = tasks.draw("log_in", 3, environ={"TEST_SITE_PASSWORD": "s3cret"})
    again = tasks.draw("log_in", 3, environ={"TEST_SITE_PASSWORD": "s3cret"})
    assert first.task == again.task and first.values["user"] in {"olga", "hiro", "dana"}
    assert 2 <= int(first.values["count"]) <= 9
    assert first.task.params["url"] == "http://127.0.0.1:9/login"
    assert first.values["user"] in first.task.instruction
    assert first.secrets == {"password": "s3cret"}
    assert "s3cret" not in repr(first) and "s3cret" not in str(first.task)
    drawn = {tasks.draw("log_in", s, environ={"TEST_SITE_PASSWORD": "x"}).values["user"]
             for s in range(12)}  # fmt: skip
    assert len(drawn) == 3
    fixed = tasks.draw("log_in", 3, {"user": "zoe", "count": "4", "password": "p"})
    assert fixed.values["user"] == "zoe" and fixed.secrets == {"password": "p"}
    with pytest.raises(ConfigError, match="--param count: 'many' is not a whole number"):
        tasks.draw("log_in", 3, {"count": "many", "password": "p"})
    with pytest.raises(ConfigError, match=r"needs the secret 'password'.*TEST_SITE_PASSWORD"):
        tasks.draw("log_in", 3, environ={})
    with pytest.raises(ConfigError, match="no task 'log_on'; did you mean 'log_in'"):
        tasks.draw("log_on", 3)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('contains = "logged in"', 'contians = "logged in"'),
         r":26: tasks.log_in.checks\[4\].contians: unknown key 'contians'"),
        (('text = "Welcome back"', 'text = "Welcome back"\nelement = "p"'),
         r":14: tasks.log_in.checks\[1\]: a check has exactly one of .* this one has text, "
         r"element"),
        (('params.count = { type = "int", range = [2, 9] }',
          'params.count = { type = "int", range = [9, 2] }'),
         r":9: tasks.log_in.params.count: range \[9, 2\] is empty"),
        (('"Log in as {user}"', '"Log in as {user} with {pasword}"'),
         r":7: tasks.log_in.instructions\[0\]: \{pasword\} names no parameter"),
        (('"Log in as {user}"', '"Log in as {user} with {password}"'),
         r":7: tasks.log_in.instructions\[0\]: an instruction never says a secret"),
        (('["echo", "user {user} is in"]', '["no-such-program-xyz", "{user}"]'),
         r":29: tasks.log_in.checks\[5\].command: no program 'no-such-program-xyz'"),
        (('http_get = "{base}/done"', 'http_get = "ftp://example.org"'),
         r":24: tasks.log_in.checks\[4\]: http_get takes an http\(s\) URL"),
    ],
)  # fmt: skip
def test_errors_name_the_file_the_line_and_the_field(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    assert change[0] in GOOD
    path = _write(tmp_path, GOOD.replace(change[0], change[1]))
    with pytest.raises(ConfigError, match=str(path).replace(".", r"\.") + expected):
        taskfile.load(path)


def test_a_file_that_is_not_toml_or_not_there_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        taskfile.load(_write(tmp_path, "[tasks.x\nstart_url = 1"))
    with pytest.raises(ConfigError, match="cannot read it"):
        taskfile.load(tmp_path / "missing.toml")


LOGIN = """<html><body><form method="post" action="/login">
  <label>Username <input name="u"></label><label>Password <input name="p" type="password"></label>
  <button>Log In</button></form></body></html>"""
PAGES = {
    "/login": LOGIN,
    "/done": "<html><body><h1>Welcome back</h1><p>You are logged in.</p></body></html>",
    "/nagging": "<html><body><p>Nagging</p><script>alert('Hello again!');"
    "setTimeout(() => location.reload(), 50)</script></body></html>",
}


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(PAGES) as (base, _posted):
        yield base


def _run(path: Path, *extra: str) -> tuple[int, str]:
    result = runner.invoke(
        app, ["run", "--env", "web", "--tasks", str(path), "--task", "log_in", *extra]
    )
    return result.exit_code, result.output


def test_run_a_task_of_a_file_the_checks_decide(tmp_path: Path, site: str) -> None:
    path = _write(tmp_path, GOOD.replace("http://127.0.0.1:9", site))
    code, output = _run(path, "--param", "password=pw", "--max-steps", "2")
    assert code == 0, output
    assert "success: no (the world's checker): check 1 failed: url" in output
    assert "Traceback" not in output and "pw" not in output.replace("password", "")
    assert pids_of_process(os.getpid()) == [], "a Chromium outlived the run"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_bad_input_is_one_clear_line_and_no_browser_is_left(tmp_path: Path, site: str) -> None:
    dead = f"http://127.0.0.1:{_closed_port()}"
    cases = {
        "unknown key": (GOOD.replace("start_url", "start_ur1"), "unknown key 'start_ur1'"),
        "no site": (GOOD.replace("http://127.0.0.1:9", dead), "the page did not load"),
        "check cannot run": (
            GOOD.replace("http://127.0.0.1:9", site).replace('"{base}/done"', f'"{dead}/x"'),
            "success: no (the world's checker): check 1 failed",  # the URL check fails first
        ),
    }
    for name, (text, expected) in cases.items():
        code, output = _run(_write(tmp_path, text), "--param", "password=pw", "--max-steps", "2")
        assert expected in output, (name, output)
        assert "Traceback" not in output, (name, output)
        assert code == (0 if name == "check cannot run" else 2), (name, output)
        if code == 2:  # the error is one line, and the last
            errors = [line for line in output.splitlines() if "error" in line.lower()]
            assert len(errors) == 1 and expected in output.strip().splitlines()[-1], output
    # the check that cannot run, alone: its reason is the line
    only = GOOD.replace("http://127.0.0.1:9", site)
    only = only[: only.index("[[tasks.log_in.checks]]")] + (
        f'[[tasks.log_in.checks]]\nhttp_get = "{dead}/x"\ncontains = "x"\n'
    )
    code, output = _run(_write(tmp_path, only), "--param", "password=pw", "--max-steps", "1")
    assert "could not run: GET" in output and "Connection refused" in output, output
    assert sum("could not run" in line for line in output.splitlines()) == 1, output
    assert pids_of_process(os.getpid()) == [], "a Chromium outlived the runs"


def test_a_page_that_opens_a_dialog_on_every_load_ends_with_a_reason(
    tmp_path: Path, site: str
) -> None:
    text = GOOD.replace("http://127.0.0.1:9", site).replace('"{base}/login"', '"{base}/nagging"')
    code, output = _run(_write(tmp_path, text), "--param", "password=pw", "--max-steps", "12")
    assert code == 0 and "success: no" in output, output
    assert "Traceback" not in output, output
    assert sum(line.startswith("success:") for line in output.splitlines()) == 1, output
    assert pids_of_process(os.getpid()) == [], "a Chromium outlived the run"
