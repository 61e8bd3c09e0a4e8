from typing import Any

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.testing import FakeModelServer, Reply

runner = CliRunner()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "GUIGRAPH_MODEL"):
        monkeypatch.delenv(name, raising=False)


def good_model(body: dict[str, Any]) -> Reply:
    """Answers like a capable Qwen3-VL: JSON for text, the red square's centre for the image."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return Reply.of('```json\n{"ok": true}\n```')
    return Reply.of('{"action": "click", "coordinate": [700, 756]}')


def test_check_reports_latency_usage_and_parsing() -> None:
    with FakeModelServer(good_model) as server:
        result = runner.invoke(
            app, ["model", "check", "--base-url", server.base_url, "--model", "test-model"]
        )
        assert server.request_count == 2
        image_request = server.requests[1]["messages"][0]["content"]
    assert result.exit_code == 0, result.output
    assert "text:" in result.output and "image:" in result.output
    assert result.output.count("reply parsed") == 2
    assert "hit the red square" in result.output
    assert "tokens" in result.output and " ms," in result.output
    assert image_request[0]["type"] == "image_url"


def test_check_flags_a_wrong_coordinate_setting() -> None:
    with FakeModelServer(good_model) as server:
        result = runner.invoke(
            app,
            [
                "model",
                "check",
                "--base-url",
                server.base_url,
                "--model",
                "test-model",
                "--coords",
                "pixel",
            ],
        )
    assert result.exit_code == 0
    assert "missed the red square" in result.output and "'pixel'" in result.output


def test_check_says_when_the_reply_does_not_parse_and_exits_non_zero() -> None:
    with FakeModelServer(default=Reply.of("Sure, I can help with that!")) as server:
        result = runner.invoke(
            app, ["model", "check", "--base-url", server.base_url, "--model", "test-model"]
        )
    assert result.exit_code == 1
    assert result.output.count("did NOT parse") == 2


def test_check_names_a_server_that_cannot_take_images_in_one_line() -> None:
    with FakeModelServer(good_model, vision=False) as server:
        result = runner.invoke(
            app, ["model", "check", "--base-url", server.base_url, "--model", "test-model"]
        )
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if "cannot take images" in line]
    assert len(lines) == 1 and "--text-only" in lines[0] and "HTTP 500" in lines[0]
    assert "Traceback" not in result.output


def tree_model(body: dict[str, Any]) -> Reply:
    """Reads the element list: taps the centre given for the Buy button."""
    import re

    content = body["messages"][-1]["content"]
    assert isinstance(content, str), "a text-only check sends no image"
    if "Buy" not in content:
        return Reply.of('{"ok": true}')
    x, y = re.search(r"'Buy' at \((\d+), (\d+)\)", content).groups()  # type: ignore[union-attr]
    return Reply.of(f'{{"action": "click", "coordinate": [{x}, {y}]}}')


@pytest.mark.parametrize("coords", ["qwen3-vl", "pixel"])
def test_text_only_check_sends_no_image_and_reads_the_screen_as_text(coords: str) -> None:
    with FakeModelServer(tree_model, vision=False, response_formats=("json_object",)) as server:
        result = runner.invoke(
            app,
            ["model", "check", "--base-url", server.base_url, "--model", "test-model",
             "--text-only", "--coords", coords],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "text only" in result.output and "screen-text:" in result.output
    assert "hit the Buy button" in result.output
    assert "structured output: json_object" in result.output


def test_check_names_the_served_models_when_the_name_is_wrong() -> None:
    with FakeModelServer(models=["Qwen/Qwen3-VL-8B-Instruct"]) as server:
        result = runner.invoke(
            app, ["model", "check", "--base-url", server.base_url, "--model", "qwen3-vl"]
        )
    assert result.exit_code == 1
    assert "404" in result.output and "does not serve this model name" in result.output
    assert "models served there: Qwen/Qwen3-VL-8B-Instruct" in result.output


def test_check_explains_an_unreachable_server() -> None:
    with FakeModelServer() as server:
        url = server.base_url  # closed when the block ends
    result = runner.invoke(app, ["model", "check", "--base-url", url, "--model", "m"])
    assert result.exit_code == 1
    assert "cannot reach the server" in result.output and url in result.output


def test_check_needs_a_model_name() -> None:
    result = runner.invoke(app, ["model", "check", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2
    assert "no model name" in result.output


def test_check_tells_parsed_json_that_ignored_the_instruction() -> None:
    with FakeModelServer(default=Reply.of('{"answer": 42}')) as server:
        result = runner.invoke(
            app, ["model", "check", "--base-url", server.base_url, "--model", "test-model"]
        )
    text_line = next(line for line in result.output.splitlines() if line.startswith("text:"))
    assert "reply parsed" in text_line and 'not the {"ok": true} asked for' in text_line
