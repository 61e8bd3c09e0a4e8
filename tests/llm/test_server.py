"""The loopback server itself, spoken to with a plain HTTP client (no SDK in between)."""

import gc
import json
import threading

import httpx2 as httpx
import pytest

from guigraph.testing import FakeModelServer, Reply

BODY = {"model": "test-model", "messages": [{"role": "user", "content": "two words"}]}


def test_plain_completion_has_the_openai_shape() -> None:
    with FakeModelServer([Reply.of("hello there")]) as server:
        reply = httpx.post(f"{server.base_url}/chat/completions", json=BODY).json()
    assert reply["object"] == "chat.completion"
    assert reply["choices"][0]["message"] == {"role": "assistant", "content": "hello there"}
    assert reply["usage"] == {"prompt_tokens": 6, "completion_tokens": 2, "total_tokens": 8}


def test_streaming_sends_server_sent_events_with_usage_last() -> None:
    body = {**BODY, "stream": True, "stream_options": {"include_usage": True}}
    text = "a reply long enough to need several chunks"
    with FakeModelServer([Reply.of(text)]) as server:
        raw = httpx.post(f"{server.base_url}/chat/completions", json=body)
    assert raw.headers["content-type"] == "text/event-stream"
    events = [line[len("data: ") :] for line in raw.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert "".join(c["choices"][0]["delta"]["content"] for c in chunks[:-1]) == text
    assert len(chunks) > 3 and chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["completion_tokens"] == len(text.split())


def test_models_route_and_unknown_model() -> None:
    with FakeModelServer(models=["a", "b"]) as server:
        listed = httpx.get(f"{server.base_url}/models").json()
        missing = httpx.post(f"{server.base_url}/chat/completions", json=BODY)
    assert [m["id"] for m in listed["data"]] == ["a", "b"]
    assert missing.status_code == 404 and "does not exist" in missing.json()["error"]["message"]


def test_scripted_errors_and_computed_replies() -> None:
    script = [Reply.error(429, retry_after=2), Reply.garbage("{oops")]
    with FakeModelServer(script, default=lambda b: Reply.of(b["messages"][0]["content"])) as s:
        limited = httpx.post(f"{s.base_url}/chat/completions", json=BODY)
        garbage = httpx.post(f"{s.base_url}/chat/completions", json=BODY)
        echoed = httpx.post(f"{s.base_url}/chat/completions", json=BODY).json()
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    assert garbage.status_code == 200 and garbage.text == "{oops"
    assert echoed["choices"][0]["message"]["content"] == "two words"


def test_dropped_connection_is_a_protocol_error() -> None:
    with FakeModelServer([Reply.drop()]) as server, pytest.raises(httpx.RemoteProtocolError):
        httpx.post(f"{server.base_url}/chat/completions", json=BODY)


def test_counts_requests_in_flight() -> None:
    # Long enough for all five requests to have started, even on a loaded machine.
    with FakeModelServer(latency_s=1.5) as server:
        threads = [
            threading.Thread(
                target=httpx.post,
                args=(f"{server.base_url}/chat/completions",),
                kwargs={"json": BODY},
            )
            for _ in range(5)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert server.max_in_flight == 5 and server.in_flight == 0


def test_stops_by_itself_when_dropped() -> None:
    server = FakeModelServer()
    url = f"{server.base_url}/models"
    assert httpx.get(url).status_code == 200
    del server
    gc.collect()
    with pytest.raises(httpx.ConnectError):
        httpx.get(url, timeout=1)
