"""Real servers as they are: no vision, errors with messages, structured-output forms, usage on
disk after every call. Each against the loopback server behaving like the real one."""

import json
from pathlib import Path

import pytest

from guigraph.errors import ModelCallError
from guigraph.llm import messages as m
from guigraph.llm import structured
from guigraph.llm.client import ChatClient
from guigraph.llm.config import ModelConfig, RoleModels
from guigraph.llm.hub import ModelHub
from guigraph.testing import FakeModelServer, Reply
from guigraph.testing.server import NO_VISION_MESSAGE, has_image
from tests.llm.conftest import fast_config, own_limit, png

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def client_for(server: FakeModelServer, **overrides: object) -> ChatClient:
    return ChatClient(fast_config(server, **overrides), limit=own_limit())


def test_a_server_refusing_images_is_named_with_its_message_and_not_retried_5_times() -> None:
    with FakeModelServer(vision=False) as server:
        with pytest.raises(ModelCallError) as caught:
            client_for(server, max_attempts=5).complete([m.user(png(32, 32), "what is this?")])
        assert server.request_count == 3  # the third identical answer ends it
    message = str(caught.value)
    assert NO_VISION_MESSAGE in message and "HTTP 500" in message
    assert "the same error 3 times" in message and "--text-only" in message
    assert "\n" not in message


def test_vision_false_never_sends_an_image_part() -> None:
    with FakeModelServer(vision=False, default=Reply.of("a red square")) as server:
        client = client_for(server, vision=False)
        result = client.complete([m.user(png(32, 32), "what is this?")])
        body = server.requests[0]
    assert result.text == "a red square"
    assert not has_image(body)
    assert m.NO_IMAGE.strip() in body["messages"][0]["content"]


@pytest.mark.parametrize("status", [400, 500])
def test_a_repeated_error_shows_the_servers_message(status: int) -> None:
    said = f"prompt too long for context window ({status})"
    with FakeModelServer(default=Reply.error(status, said)) as server:
        with pytest.raises(ModelCallError, match=rf"HTTP {status}: server said: prompt too long"):
            client_for(server, max_attempts=5).complete([m.user("hello")])
        # 400 is not transient: one request. 500 is, until it repeats identically.
        assert server.request_count == (1 if status == 400 else 3)


def test_rate_limits_keep_their_retries_even_when_identical() -> None:
    with FakeModelServer(default=Reply.error(429, "slow down")) as server:
        with pytest.raises(ModelCallError, match="3 attempt"):
            client_for(server, max_attempts=3).complete([m.user("hello")])
        assert server.request_count == 3


def test_structured_output_falls_back_to_the_form_the_server_accepts() -> None:
    with FakeModelServer(response_formats=("json_object",), default=Reply.of('{"ok": true}')) as s:
        client = client_for(s)
        assert client.complete_json([m.user("ok?")], json_schema=SCHEMA) == {"ok": True}
        assert [r["response_format"]["type"] for r in s.requests] == ["json_schema", "json_object"]
        assert s.requests[1]["response_format"]["schema"] == SCHEMA
        # Learned once per server and model: the next call goes straight to json_object.
        client_for(s).complete_json([m.user("again?")], json_schema=SCHEMA)
        assert s.requests[2]["response_format"]["type"] == "json_object"
        assert structured.detected(client.config) == "json_object"


def test_structured_output_none_when_the_server_takes_no_form() -> None:
    with FakeModelServer(response_formats=(), default=Reply.of('Sure: {"ok": true}')) as s:
        assert client_for(s).complete_json([m.user("ok?")], json_schema=SCHEMA) == {"ok": True}
        kinds = [(r.get("response_format") or {}).get("type") for r in s.requests]
    assert kinds == ["json_schema", "json_object", None]


@pytest.mark.parametrize("form", ["json_schema", "json_object", "none"])
def test_a_set_structured_form_is_sent_as_is(form: str) -> None:
    with FakeModelServer(default=Reply.of('{"ok": true}')) as server:
        client_for(server, structured=form).complete([m.user("ok?")], json_schema=SCHEMA)
        sent = server.requests[0].get("response_format")
    assert sent == structured.response_format(form, SCHEMA)


def test_a_set_form_the_server_rejects_fails_with_its_message() -> None:
    with FakeModelServer(response_formats=("json_object",)) as server:
        with pytest.raises(ModelCallError, match="Input should be 'text' or 'json_object'"):
            client_for(server, structured="json_schema").complete(
                [m.user("ok?")], json_schema=SCHEMA
            )
        assert server.request_count == 1  # a rejected form is not retried


def test_usage_is_on_disk_after_every_call(tmp_path: Path) -> None:
    path = tmp_path / "run" / "usage.json"
    script = [Reply.of("one"), Reply.error(503, "a"), Reply.of("two"), Reply.error(400, "bad")]
    with FakeModelServer(script) as server:
        models = RoleModels(default=fast_config(server))
        with ModelHub(models, usage_path=path) as hub:
            client = hub.client("planner")
            client.complete([m.user("first")])
            first = json.loads(path.read_text())
            assert first["run"]["calls"] == 1 and first["run"]["completion_tokens"] == 1
            client.complete([m.user("second")])
            with pytest.raises(ModelCallError):
                client.complete([m.user("third")])
            saved = json.loads(path.read_text())
            reported = server.reported_usage
    assert saved["schema_version"] == 2
    run = saved["run"]
    assert (run["calls"], run["retries"], run["failed_calls"]) == (3, 1, 1)
    assert run["prompt_tokens"] == sum(p for p, _ in reported)
    assert "bad" in saved["records"][-1]["error"]
    assert not list(path.parent.glob(".*.tmp"))  # no temporary file left behind


def test_settings_files_name_wrong_values() -> None:
    from guigraph.errors import ConfigError

    with pytest.raises(ConfigError, match="structured"):
        ModelConfig(structured="xml")
    with pytest.raises(ConfigError, match="max_tokens"):
        ModelConfig.from_dict({"max_tokens": "many"})
