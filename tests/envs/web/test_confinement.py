"""A web run stays inside its task: the task's own origin (and what ``--allow-origin`` adds);
``file:`` and ``data:`` pages only when the task starts there. A refused navigation is one step
error, and nothing of the refused page reaches the team, a prompt, a record or a run file."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.envs.web.env import WebEnv
from guigraph.envs.web.origins import Origins, parse_rule
from guigraph.errors import ConfigError
from guigraph.testing import FakeModelServer, Reply
from guigraph.types import Action

from .site import serve

MARKER = f"root:x:0:0:confined-{uuid.uuid4().hex}"


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file like /etc/passwd, of our own, with a marker no page or prompt otherwise holds."""
    path = tmp_path_factory.mktemp("private") / "passwd"
    path.write_text(f"{MARKER}\ndaemon:x:1:1\n")
    return path


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """Pages on 127.0.0.1; the same server as ``localhost`` is another origin."""
    other = "location.origin.replace('127.0.0.1', 'localhost') + '/secret.html'"
    pages = {
        "/start.html": (
            "<title>Start</title><h1>Start</h1>"
            "<a href='/next.html'>Next page</a> <a id='away' href='#'>Elsewhere</a> "
            f'<button onclick="window.open({other})">Pop up</button>'
            f"<script>document.getElementById('away').href = {other};</script>"
        ),
        "/next.html": "<title>Next</title><p>Still here</p>",
        "/secret.html": f"<title>Secret</title><p>{MARKER}</p>",
    }
    with serve(pages) as (base, _):
        yield base


@pytest.fixture(scope="module")
def env() -> Iterator[WebEnv]:
    world = WebEnv(timeout=5.0)
    try:
        yield world
    finally:
        world.close()


def _texts(env: WebEnv) -> str:
    assert env._last is not None
    return " ".join(e.text for e in env._last.elements or ())


def test_origin_rules() -> None:
    task = Origins.for_task("http://127.0.0.1:8080/wiki/start")
    assert task.allows("http://127.0.0.1:8080/wiki/other?x=1") and task.allows("about:blank")
    assert not task.allows("http://127.0.0.1:8081/") and not task.allows("https://127.0.0.1:8080/")
    assert not task.allows("file:///etc/passwd") and not task.allows("data:text/html,hi")
    local = Origins.for_task("file:///opt/miniwob/html/login-user.html")
    assert local.allows("file:///opt/miniwob/html/enter-text.html")
    assert not local.allows("file:///etc/passwd") and not local.allows("file:///opt/other.html")
    assert Origins.for_task("data:text/html,<p>a</p>").allows("data:text/html,<p>a</p>")
    assert not Origins.for_task("data:text/html,<p>a</p>").allows("data:text/html,<p>b</p>")
    wide = Origins.for_task("about:blank", [parse_rule("*.example.org"), parse_rule("*")])
    assert wide.allows("https://a.example.org/") and wide.allows("http://any.test/")
    assert not wide.allows("file:///etc/passwd") and not wide.allows("data:text/html,x")
    assert Origins.for_task("about:blank", [parse_rule("localhost:9")]).allows(
        "http://localhost:9/"
    )
    assert not Origins.for_task("about:blank", [parse_rule("localhost:9")]).allows(
        "http://localhost:8/"
    )
    refusal = Origins.for_task("about:blank").refusal("https://example.org/")
    assert (
        refusal
        and "none: the task starts on a blank page" in refusal
        and "--allow-origin" in refusal
    )
    for bad in ("ftp://x.org", "https://x.org/path", "two words", "https://x.org:99999"):
        with pytest.raises(ConfigError, match="--allow-origin"):
            parse_rule(bad)


def test_opening_a_file_or_another_site_is_a_refused_step(
    env: WebEnv, site: str, secret_file: Path
) -> None:
    env.reset(env.make_task(f"{site}/start.html", 0), 0)
    for target in (
        secret_file.as_uri(),
        "data:text/html,<p>x</p>",
        site.replace("127.0.0.1", "localhost"),
    ):
        result = env.step(Action.open_app(target))
        assert result.error and result.error.startswith("refused to open"), result.error
        assert not result.done and env._page.url == f"{site}/start.html"
    assert MARKER not in _texts(env)
    inside = env.step(Action.open_app(f"{site}/next.html"))
    assert inside.error is None and "Still here" in _texts(env)


def _click(env: WebEnv, label: str) -> Action:
    assert env._last is not None
    element = next(e for e in env._last.elements or () if e.text == label)
    center = element.bbox.center
    return Action.click(center.x, center.y)


def test_a_link_or_a_tab_to_another_origin_is_left_before_it_is_read(
    env: WebEnv, site: str
) -> None:
    env.reset(env.make_task(f"{site}/start.html", 0), 0)
    result = env.step(_click(env, "Elsewhere"))
    assert result.error and result.error.startswith("refused to open"), result.error
    assert env._page.url == f"{site}/start.html" and MARKER not in _texts(env)
    popped = env.step(_click(env, "Pop up"))
    assert popped.error and popped.error.startswith("refused to open"), popped.error
    assert env._page.url == f"{site}/start.html" and MARKER not in _texts(env)
    assert len([p for p in env._context.pages if not p.is_closed()]) == 1


def test_allow_origin_widens_where_a_task_may_go(site: str) -> None:
    world = WebEnv(timeout=5.0, allow_origins=[site.replace("http://127.0.0.1", "localhost")])
    try:
        world.reset(world.make_task(f"{site}/start.html", 0), 0)
        result = world.step(
            Action.open_app(site.replace("127.0.0.1", "localhost") + "/secret.html")
        )
        assert result.error is None and MARKER in _texts(world)
    finally:
        world.close()


def _model(secret_url: str) -> Any:
    """A model that tries to read the file, then gives up."""
    calls = {"decider": 0}

    def answer(body: dict[str, Any]) -> Reply:
        text = "\n".join(
            m["content"] if isinstance(m["content"], str) else
            " ".join(p.get("text", "") for p in m["content"])
            for m in body["messages"]
        )  # fmt: skip
        if "Role: decider." in text:
            calls["decider"] += 1
            actions = [
                {"action": "open_app", "app_name": secret_url},
                {"action": "impossible"},
            ]
            action = actions[min(calls["decider"], len(actions)) - 1]
            return Reply.of(json.dumps({"thought": "read it", "action": action}))
        if "Role: global planner." in text:
            return Reply.of(json.dumps({"subgoals": [{"description": "read the file"}]}))
        if "Role: progress tracker." in text:
            return Reply.of(json.dumps({"complete": False, "subgoal": "read the file"}))
        if "Role: verifier." in text:
            return Reply.of(json.dumps({"approved": True}))
        if "Role: outcome checker." in text:
            return Reply.of(json.dumps({"status": "success", "note": "fine"}))
        return Reply.of("A page.")

    return answer


def test_a_model_told_to_open_a_file_gets_a_refused_step_and_its_text_goes_nowhere(
    site: str, secret_file: Path, tmp_path: Path
) -> None:
    out, record = tmp_path / "run", tmp_path / "recorded"
    with FakeModelServer(_model(secret_file.as_uri()), models=("m",)) as server:
        args = ["run", "--env", "web", "--task", f"{site}/start.html", "--policy", "model"]
        args += ["--model", "m", "--base-url", server.base_url, "--max-steps", "3"]
        result = CliRunner().invoke(app, [*args, "--out", str(out), "--record", str(record)])
        assert result.exit_code == 0, result.output
        prompts = json.dumps(server.requests)
    steps = [json.loads(line) for line in (out / "steps.jsonl").read_text().split("\n") if line]
    assert any("refused to open" in json.dumps(step) for step in steps)
    assert MARKER not in prompts and MARKER not in result.output
    written = [p for folder in (out, record) for p in folder.rglob("*") if p.is_file()]
    assert written
    for path in written:
        assert MARKER.encode() not in path.read_bytes(), path


def test_allow_origin_is_for_the_web_and_checked_before_a_browser_starts() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["run", "--task", "tool.wifi", "--allow-origin", "example.org"])
    assert result.exit_code == 2 and "the simphone world has none" in result.output
    bad = ["run", "--env", "web", "--task", "about:blank", "--allow-origin", "ftp://x"]
    result = runner.invoke(app, bad)
    assert result.exit_code == 2 and "--allow-origin 'ftp://x'" in result.output


def test_eval_web_takes_allow_origin_checked_before_a_browser_starts(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "run"
    bad = ["eval", "web", "--out", str(out), "--memory", "none", "--tasks", "click-test"]
    result = runner.invoke(app, [*bad, "--allow-origin", "ftp://x"])
    assert result.exit_code == 2 and "--allow-origin 'ftp://x'" in result.output
    assert not out.exists()


def test_eval_web_workers_confine_their_browser_to_the_allowed_origins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from guigraph import envs
    from guigraph.eval.worker import EvalSpec, WebJob, Worker

    made: list[dict[str, Any]] = []

    def fake_make(name: str, **options: Any) -> Any:
        made.append({"world": name, **options})
        raise ConfigError("no browser in this test")

    monkeypatch.setattr(envs, "make", fake_make)
    spec = EvalSpec("web", "", use_graph=False, allow_origins=("localhost", "*.example.org"))
    assert spec.to_config()["allow_origins"] == ["localhost", "*.example.org"]
    # A run made without any writes no such key: it resumes as before.
    assert "allow_origins" not in EvalSpec("web", "", use_graph=False).to_config()
    worker = Worker(spec)
    with pytest.raises(ConfigError):
        worker._run_web(WebJob("click-test", 1), lambda row: None)
    assert made == [{"world": "web", "allow_origins": ["localhost", "*.example.org"]}]


def test_a_bug_in_one_web_episode_fails_that_episode_with_its_error_not_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from guigraph import envs
    from guigraph.eval.worker import EvalSpec, WebJob, Worker

    class Broken:
        action_space = frozenset[Any]()

        def make_task(self, spec: str, seed: int) -> Any:
            raise IndexError("list index out of range")

        def close(self) -> None:
            pass

    monkeypatch.setattr(envs, "make", lambda name, **options: Broken())
    row = Worker(EvalSpec("web", "", use_graph=False))._run_web(WebJob("click-test", 1), print)
    assert row["success"] is False and row["reason"] == "crash"
    assert row["error"] == "IndexError: list index out of range"
