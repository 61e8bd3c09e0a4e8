import asyncio
import base64
import io
import itertools
from collections.abc import Callable

import pytest
from PIL import Image

from guigraph.errors import ModelCallError, ResponseParseError
from guigraph.llm import messages as m
from guigraph.llm.client import ChatClient
from guigraph.llm.config import ImagePolicy
from guigraph.testing import FakeModelServer, Reply
from tests.llm.conftest import fast_config, own_limit, png

HELLO = [m.system("You are terse."), m.user("Say hello.")]


def client_for(server: FakeModelServer, **overrides: object) -> ChatClient:
    return ChatClient(fast_config(server, **overrides), limit=own_limit())


def varying(status: int) -> Callable[[dict], Reply]:
    """A server error whose message changes each time (a transient fault, not a refusal)."""
    numbers = itertools.count(1)
    return lambda _body: Reply.error(status, f"worker {next(numbers)} crashed")


@pytest.mark.parametrize(
    "failures",
    [
        [Reply.error(429, retry_after=0)] * 2,
        [Reply.error(500, "worker 1 crashed"), Reply.error(500, "worker 2 crashed")],
        [Reply.error(503, "loading"), Reply.error(503, "still loading")],
        [Reply.drop()] * 2,
        [Reply.garbage()] * 2,
        [Reply.slow(1.0)] * 2,
    ],
    ids=["429", "500", "503", "dropped", "not-json", "timeout"],
)
def test_retries_recover_from_transient_failures(failures: list[Reply]) -> None:
    with FakeModelServer([*failures, Reply.of("recovered")]) as server:
        result = client_for(server, timeout_s=0.3).complete(HELLO)
    assert result.text == "recovered"
    assert result.attempts == 3
    assert server.request_count == 3


@pytest.mark.parametrize(
    "failure",
    [Reply.error(429), varying(500), Reply.drop(), Reply.slow(1.0)],
    ids=["429", "500", "dropped", "timeout"],
)
def test_gives_up_with_typed_error_after_configured_attempts(
    failure: Reply | Callable[[dict], Reply],
) -> None:
    with FakeModelServer(default=failure) as server:
        client = client_for(server, max_attempts=3, timeout_s=0.2)
        with pytest.raises(ModelCallError, match="3 attempt"):
            client.complete(HELLO)
        assert server.request_count == 3


def test_async_entry_point_retries_too() -> None:
    with FakeModelServer([Reply.error(500), Reply.drop(), Reply.of("async ok")]) as server:
        result = asyncio.run(client_for(server).acomplete(HELLO))
        assert (result.text, result.attempts, server.request_count) == ("async ok", 3, 3)


def test_async_gives_up_after_configured_attempts() -> None:
    with FakeModelServer(default=varying(502)) as server:
        with pytest.raises(ModelCallError, match="2 attempt"):
            asyncio.run(client_for(server, max_attempts=2).acomplete(HELLO))
        assert server.request_count == 2


def test_unknown_model_fails_at_once_with_clear_message() -> None:
    with FakeModelServer(models=["served-model"]) as server:
        with pytest.raises(ModelCallError, match=r"404.*does not serve this model name"):
            client_for(server).complete(HELLO)
        assert server.request_count == 1  # a 404 is not retried


def test_bad_request_is_not_retried() -> None:
    with FakeModelServer(default=Reply.error(400, "bad field")) as server:
        with pytest.raises(ModelCallError, match="bad field"):
            client_for(server).complete(HELLO)
        assert server.request_count == 1


def test_unreachable_server_is_a_model_call_error() -> None:
    with FakeModelServer() as server:
        url = server.base_url
    client = ChatClient(fast_config(server, base_url=url, max_attempts=2), limit=own_limit())
    with pytest.raises(ModelCallError, match="cannot reach the server"):
        client.complete(HELLO)


@pytest.mark.parametrize("stream", [False, True])
def test_streaming_and_plain_replies_are_equal(stream: bool) -> None:
    text = "A longer reply that the server sends in several streamed pieces."
    with FakeModelServer(default=Reply.of(text)) as server:
        client = client_for(server, stream=stream)
        sync = client.complete(HELLO)
        async_ = asyncio.run(client.acomplete(HELLO))
        assert server.requests[0].get("stream", False) is stream
    for result in (sync, async_):
        assert result.text == text
        assert result.completion_tokens == len(text.split())
        assert result.prompt_tokens > 0


def test_images_are_png_data_uris_within_the_pixel_budget() -> None:
    policy = ImagePolicy(max_pixels=200_000)
    with FakeModelServer() as server:
        client = client_for(server, image_policy=policy)
        client.complete([m.user("Where is the button?", png(1080, 2400))])
        part = server.requests[0]["messages"][0]["content"][1]
    prefix = "data:image/png;base64,"
    assert part["type"] == "image_url" and part["image_url"]["url"].startswith(prefix)
    image = Image.open(io.BytesIO(base64.b64decode(part["image_url"]["url"][len(prefix) :])))
    width, height = image.size
    assert image.format == "PNG"
    assert width * height <= 200_000
    assert abs(width / height - 1080 / 2400) < 0.01  # aspect kept


def test_small_images_are_sent_unchanged() -> None:
    small = png(300, 500)
    with FakeModelServer() as server:
        client_for(server).complete([m.user(small)])
        url = server.requests[0]["messages"][0]["content"][0]["image_url"]["url"]
    assert base64.b64decode(url.split(",", 1)[1]) == small


def test_json_schema_is_sent_and_reply_parsed() -> None:
    schema = {"type": "object", "properties": {"jump": {"type": "boolean"}}}
    reply = 'Sure!\n```json\n{"jump": true}\n```'
    with FakeModelServer(default=Reply.of(reply)) as server:
        value = client_for(server).complete_json(HELLO, json_schema=schema)
        sent = server.requests[0]["response_format"]
    assert value == {"jump": True}
    assert sent == {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}


def test_unparseable_json_reply_raises_parse_error_with_raw_text() -> None:
    server = FakeModelServer(default=Reply.of('{"jump": tru'))
    with server, pytest.raises(ResponseParseError) as caught:
        client_for(server).complete_json(HELLO)
    assert caught.value.raw == '{"jump": tru'


def test_async_connections_close_with_their_loop() -> None:
    async def use(client: ChatClient) -> str:
        text = (await client.acomplete(HELLO)).text
        await client.aclose()
        await client.aclose()  # harmless twice
        return text

    with FakeModelServer() as server:
        client = client_for(server)
        assert asyncio.run(use(client)) == "ok"
        assert asyncio.run(use(client)) == "ok"  # a new loop gets a new connection pool
        assert server.request_count == 2


@pytest.mark.parametrize("failure", [Reply.error(500), Reply.drop()], ids=["500", "dropped"])
def test_streaming_requests_retry_too(failure: Reply) -> None:
    with FakeModelServer([failure, Reply.of("streamed after a failure")]) as server:
        result = client_for(server, stream=True).complete(HELLO)
    assert (result.text, result.attempts) == ("streamed after a failure", 2)


def test_retry_after_is_honoured() -> None:
    import time

    with FakeModelServer([Reply.error(429, retry_after=0.3), Reply.of("ok")]) as server:
        started = time.perf_counter()
        client_for(server, backoff_max_s=0.5).complete(HELLO)
        assert time.perf_counter() - started >= 0.3


def test_sent_size_matches_what_the_server_received() -> None:
    from guigraph.geometry import ScreenSize

    policy = ImagePolicy(max_pixels=300_000)
    with FakeModelServer() as server:
        client_for(server, image_policy=policy).complete([m.user(png(1600, 2560))])
        url = server.requests[0]["messages"][0]["content"][0]["image_url"]["url"]
    received = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size
    assert policy.sent_size(ScreenSize(1600, 2560)) == ScreenSize(*received)


def test_bugs_in_the_caller_are_not_disguised_as_server_failures() -> None:
    with FakeModelServer() as server:
        client = client_for(server)
        with pytest.raises(TypeError, match="message parts are text or ImagePart"):
            client.complete([m.user(12345)])  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="not JSON serializable"):
            client.complete(HELLO, json_schema={"type": object()})
        assert server.request_count == 0


def test_errors_inside_the_call_that_are_not_the_servers_propagate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from guigraph.llm import replies

    def broken(response: object) -> dict:
        raise KeyError("a bug while reading the reply")

    monkeypatch.setattr(replies, "read_completion", broken)
    with FakeModelServer() as server:
        with pytest.raises(KeyError, match="a bug"):
            client_for(server).complete(HELLO)
        assert server.request_count == 1  # and no retry: a bug does not go away by waiting
