"""``timeout_s`` (``--timeout``) is each request's deadline, however a server sends; a reply
is capped: a huge one is cut (and said so) or refused, never kept whole."""

from __future__ import annotations

import asyncio
import logging
import time

import openai  # noqa: F401  (loaded before any clock starts: importing it takes seconds)
import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.errors import ModelCallError
from guigraph.llm import messages as m
from guigraph.llm.client import ChatClient
from guigraph.llm.replies import MAX_BODY_BYTES, MAX_REPLY_CHARS
from guigraph.testing import FakeModelServer, Reply
from tests.llm.conftest import fast_config, own_limit

HELLO = [m.user("Say hello.")]
#: A valid reply sent a byte every 50 ms: some 15 s in all, each byte well within any timeout.
TRICKLE = Reply.trickle('{"ok": true}', 0.05)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_trickling_server_does_not_outlast_the_timeout(stream: bool) -> None:
    reply = Reply.trickle("a reply sent one piece at a time " * 10, 0.05) if stream else TRICKLE
    with FakeModelServer(default=reply) as server:
        client = ChatClient(
            fast_config(server, timeout_s=1.0, max_attempts=1, stream=stream), limit=own_limit()
        )
        started = time.monotonic()
        with pytest.raises(ModelCallError, match="timed out"):
            client.complete(HELLO)
        assert time.monotonic() - started < 4.0  # the reply itself would take 15 s


def test_async_calls_keep_the_deadline_too() -> None:
    with FakeModelServer(default=TRICKLE) as server:
        client = ChatClient(fast_config(server, timeout_s=1.0, max_attempts=1), limit=own_limit())
        started = time.monotonic()
        with pytest.raises(ModelCallError, match="timed out"):
            asyncio.run(client.acomplete(HELLO))
        assert time.monotonic() - started < 4.0


def test_model_check_timeout_is_a_deadline() -> None:
    with FakeModelServer(default=TRICKLE) as server:
        started = time.monotonic()
        args = ["model", "check", "--base-url", server.base_url, "--model", "test-model"]
        args += ["--timeout", "1"]
        result = CliRunner().invoke(app, args)
        took = time.monotonic() - started
    assert result.exit_code != 0 and "timed out" in result.output, result.output
    assert took < 8.0, took  # two attempts of 1 s and a short backoff; the reply needs 15 s


def test_a_huge_whole_reply_is_refused_unread() -> None:
    with FakeModelServer(default=Reply.of("x" * (20 * 1024 * 1024))) as server:
        client = ChatClient(fast_config(server, timeout_s=30.0), limit=own_limit())
        with pytest.raises(ModelCallError, match=f"larger than {MAX_BODY_BYTES} bytes"):
            client.complete(HELLO)
        assert server.request_count == 1  # the same answer again would not help


@pytest.mark.slow  # some 8,000 stream events
def test_a_long_streamed_reply_is_cut_and_said(caplog: pytest.LogCaptureFixture) -> None:
    text = "word " * (MAX_REPLY_CHARS // 5 + 200)  # past the cap
    with FakeModelServer(default=Reply.of(text)) as server:
        client = ChatClient(fast_config(server, timeout_s=30.0, stream=True), limit=own_limit())
        with caplog.at_level(logging.WARNING, logger="guigraph.llm"):
            result = client.complete(HELLO)
    assert len(result.text) == MAX_REPLY_CHARS and text.startswith(result.text)
    assert result.finish_reason == "length"
    assert any("was cut to its first" in r.getMessage() for r in caplog.records)


def test_a_long_whole_reply_under_the_body_cap_is_cut_too() -> None:
    text = "y" * (MAX_REPLY_CHARS + 1000)
    with FakeModelServer(default=Reply.of(text)) as server:
        client = ChatClient(fast_config(server, timeout_s=30.0), limit=own_limit())
        result = client.complete(HELLO)
    assert result.text == text[:MAX_REPLY_CHARS] and result.finish_reason == "length"
