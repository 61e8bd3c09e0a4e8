"""The one place guigraph talks to chat models: an OpenAI-compatible client.

``ChatClient`` wraps the ``openai`` SDK (vLLM, Ollama and OpenAI all speak its protocol) and
adds what every caller needs, once: screenshots as data URIs within a pixel budget (none at
all for a model set ``vision: false``), structured output in the form the server accepts
(``guigraph.llm.structured``), timeouts, retries with exponential backoff and full jitter on
rate limits, server errors, timeouts and dropped connections but not on an error answered
twice alike (the SDK's own retries are off so that the attempt count is exactly
``max_attempts``), a concurrency limit shared by every client of the
same server, the response cache, and usage accounting. Failures raise ``ModelCallError``;
nothing returns a sentinel string.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

from guigraph.errors import ModelCallError, require
from guigraph.llm import replies, retry, structured
from guigraph.llm.cache import ResponseCache, request_key
from guigraph.llm.config import ModelConfig
from guigraph.llm.limits import ConcurrencyLimit
from guigraph.llm.messages import ChatMessage, render, without_images
from guigraph.llm.usage import UsageLedger, UsageRecord, UsageTags

log = logging.getLogger("guigraph.llm")

_LIMITS: dict[str, ConcurrencyLimit] = {}
_LIMITS_LOCK = threading.Lock()


def shared_limit(base_url: str, limit: int) -> ConcurrencyLimit:
    """The process-wide limit for one server; the first caller's size wins."""
    with _LIMITS_LOCK:
        return _LIMITS.setdefault(base_url, ConcurrencyLimit(limit))


@dataclass(frozen=True, slots=True)
class ChatResult:
    text: str
    model: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cached: bool = False
    attempts: int = 1

    def json(self) -> Any:
        """The reply parsed as JSON, tolerating fences, prose and thinking traces."""
        from guigraph.llm.parsing import extract_json

        return extract_json(self.text)

    def to_cache(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "model": self.model,
            "finish_reason": self.finish_reason,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


@dataclass(frozen=True, slots=True)
class _Prepared:
    params: dict[str, Any]
    cache_key: str
    images: int


class ChatClient:
    """Chat completions for one model configuration (usually one agent role)."""

    def __init__(
        self,
        config: ModelConfig,
        *,
        role: str = "",
        ledger: UsageLedger | None = None,
        cache: ResponseCache | None = None,
        limit: ConcurrencyLimit | None = None,
    ):
        self.config = config.resolved()
        self.role = role
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.cache = cache
        self.limit = limit or shared_limit(self.config.base_url, self.config.max_concurrency)
        self._sync_client: Any = None
        self._async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any]
        self._async_clients = weakref.WeakKeyDictionary()
        self._client_lock = threading.Lock()
        self._retry = retry.RetryPolicy(self.config, self._describe())

    def __repr__(self) -> str:
        return f"ChatClient(model={self.config.model!r}, base_url={self.config.base_url!r})"

    # -- public entry points -------------------------------------------------------------

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: dict[str, Any] | None = None,
        tags: UsageTags | None = None,
    ) -> ChatResult:
        call = _Call(self, messages, json_schema, tags)
        for prepared in call.requests():
            with call.sending():
                call.reply = self._retry.sync()(self._attempt_sync, call, prepared)
        return call.result()

    async def acomplete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: dict[str, Any] | None = None,
        tags: UsageTags | None = None,
    ) -> ChatResult:
        call = _Call(self, messages, json_schema, tags)
        for prepared in call.requests():
            with call.sending():
                call.reply = await self._retry.asynchronous()(self._attempt_async, call, prepared)
        return call.result()

    # The one thing the two entry points do differently: one attempt, which tenacity repeats.

    def _attempt_sync(self, call: _Call, prepared: _Prepared) -> dict[str, Any]:
        call.attempts += 1
        with self.limit.slot():
            return self._call_sync(prepared.params)

    async def _attempt_async(self, call: _Call, prepared: _Prepared) -> dict[str, Any]:
        call.attempts += 1
        async with self.limit.slot_async():
            return await self._call_async(prepared.params)

    def _falls_back(self, exc: BaseException, form: str, number: int, count: int) -> bool:
        """A rejected structured-output form: remember it and try the next form."""
        if number == count - 1 or not retry.is_format_rejection(exc):
            return False
        structured.remember(self.config, form, worked=False)
        log.info(
            "%s rejects response_format %s (%s); trying the next form",
            self._describe(), form, retry.server_message(exc, 160),
        )  # fmt: skip
        return True

    def _failed(
        self, exc: BaseException, prepared: _Prepared, attempts: int, tags: UsageTags | None
    ) -> BaseException:
        if not retry.is_model_failure(exc):
            return exc  # a bug of ours, not the server's: let it show as itself
        error = retry.as_model_error(exc, self.config, attempts, prepared.images)
        self._account_failure(error, prepared.images, attempts, tags)
        return error

    def complete_json(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: dict[str, Any] | None = None,
        tags: UsageTags | None = None,
    ) -> Any:
        """The reply parsed as JSON; ``ResponseParseError`` (with the raw text) if it is not."""
        return self.complete(messages, json_schema=json_schema, tags=tags).json()

    async def acomplete_json(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: dict[str, Any] | None = None,
        tags: UsageTags | None = None,
    ) -> Any:
        result = await self.acomplete(messages, json_schema=json_schema, tags=tags)
        return result.json()

    def close(self) -> None:
        if self._sync_client is not None:
            self._sync_client.close()
            self._sync_client = None

    async def aclose(self) -> None:
        """Close this event loop's connections (call before the loop ends, e.g. at the end
        of the coroutine given to ``asyncio.run``)."""
        client = self._async_clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    # -- request preparation, cache and accounting ----------------------------------------

    def _prepare(
        self, messages: Sequence[ChatMessage], json_schema: dict[str, Any] | None, form: str
    ) -> _Prepared:
        if not messages:
            raise ValueError("a chat request needs at least one message")
        if not self.config.vision:
            messages = [without_images(message) for message in messages]
        rendered = render(list(messages), self.config.image_policy)
        params: dict[str, Any] = {
            "model": self.config.model,
            "messages": rendered.wire,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
        }
        response_format = structured.response_format(form, json_schema or {})
        if json_schema is not None and response_format is not None:
            params["response_format"] = response_format
        key = request_key(
            {
                **{k: v for k, v in params.items() if k != "messages"},
                "messages": rendered.cache_view,
            }
        )
        return _Prepared(params, key, rendered.image_count)

    def _from_cache(self, prepared: _Prepared, tags: UsageTags | None) -> ChatResult | None:
        if self.cache is None:
            return None
        stored = self.cache.get(prepared.cache_key)
        if stored is None:
            return None
        result = ChatResult(latency_s=0.0, cached=True, attempts=0, **stored)
        self._account(result, prepared.images, tags)
        return result

    def _finish(
        self,
        prepared: _Prepared,
        reply: dict[str, Any],
        started: float,
        attempts: int,
        tags: UsageTags | None,
        form: str,
        json_schema: dict[str, Any] | None,
    ) -> ChatResult:
        if json_schema is not None:
            structured.remember(self.config, form, worked=True)
        text, cut = replies.capped(reply["text"], self._describe())
        if cut:  # a cut reply is one the model did not finish
            reply = {**reply, "text": text, "finish_reason": "length"}
        result = ChatResult(
            latency_s=time.perf_counter() - started, cached=False, attempts=attempts, **reply
        )
        if self.cache is not None:
            self.cache.put(prepared.cache_key, self.config.model, result.to_cache())
        self._account(result, prepared.images, tags)
        return result

    def _tags(self, tags: UsageTags | None) -> UsageTags:
        tags = tags or UsageTags(role=self.role)
        if not tags.role and self.role:
            tags = UsageTags(role=self.role, episode=tags.episode, step=tags.step)
        return tags

    def _account(self, result: ChatResult, images: int, tags: UsageTags | None) -> None:
        tags = self._tags(tags)
        cost = self.config.prices.cost(result.prompt_tokens, result.completion_tokens)
        self.ledger.record(
            UsageRecord(
                model=result.model,
                tags=tags,
                prompt_tokens=result.prompt_tokens,
                completion_tokens=result.completion_tokens,
                images=images,
                cost_usd=cost,
                latency_s=result.latency_s,
                cached=result.cached,
                attempts=result.attempts,
            )
        )

    def _account_failure(
        self, error: ModelCallError, images: int, attempts: int, tags: UsageTags | None
    ) -> None:
        """The ledger row of a call given up; with ``_account``, the one place each outcome of
        either entry point is recorded (``MeteredClient`` extends both)."""
        self.ledger.record(
            UsageRecord(
                model=self.config.model, tags=self._tags(tags), prompt_tokens=0,
                completion_tokens=0, images=images, cost_usd=0.0, latency_s=0.0,
                attempts=attempts, error=str(error)[:300],
            )
        )  # fmt: skip

    def _describe(self) -> str:
        return f"{self.config.model} at {self.config.base_url}"

    # -- one attempt -------------------------------------------------------------------

    def _sdk_options(self) -> dict[str, Any]:
        return {
            "base_url": self.config.base_url,
            "api_key": self.config.api_key,
            "timeout": self.config.timeout_s,
            "max_retries": 0,  # retries are ours, see module docstring
        }

    def _sync_sdk(self) -> Any:
        with self._client_lock:
            if self._sync_client is None:
                openai = require("openai", "llm")
                self._sync_client = openai.OpenAI(**self._sdk_options())
            return self._sync_client

    def _async_sdk(self) -> Any:
        # An async HTTP pool belongs to the loop that made it: one SDK client per loop.
        loop = asyncio.get_running_loop()
        with self._client_lock:
            client = self._async_clients.get(loop)
            if client is None:
                openai = require("openai", "llm")
                client = openai.AsyncOpenAI(**self._sdk_options())
                self._async_clients[loop] = client
            return client

    # ``timeout_s`` is each request's deadline, however the server sends: the SDK's timeout
    # bounds each wait for bytes, so a server trickling a byte a second would never time out;
    # the body is read here, chunk by chunk, against the deadline (and the reply's size cap).

    def _call_sync(self, params: dict[str, Any]) -> dict[str, Any]:
        sdk = self._sync_sdk()
        deadline = time.monotonic() + self.config.timeout_s
        if not self.config.stream:
            response = sdk.post(_PATH, body=params, cast_to=_completion_type(), options=_RAW)
            try:
                late = _late(response.http_request)
                body = replies.read_body(response.iter_bytes(), deadline, late)
            finally:
                response.close()
            return replies.read_completion(replies.completion_of(body))
        stream = sdk.chat.completions.create(
            **params, stream=True, stream_options={"include_usage": True}
        )
        collector = replies.StreamCollector(self.config.model)
        with stream:
            for chunk in stream:
                if collector.started and replies.past_deadline(deadline):
                    raise _late(stream.response.request)()
                collector.add(chunk)
                if collector.full:
                    break
        return collector.result()

    async def _call_async(self, params: dict[str, Any]) -> dict[str, Any]:
        sdk = self._async_sdk()
        deadline = time.monotonic() + self.config.timeout_s
        if not self.config.stream:
            response = await sdk.post(_PATH, body=params, cast_to=_completion_type(), options=_RAW)
            try:
                late = _late(response.http_request)
                parts = [chunk async for chunk in _until(response.iter_bytes(), deadline, late)]
                body = replies.read_body(parts, float("inf"), late)
            finally:
                await response.close()
            return replies.read_completion(replies.completion_of(body))
        stream = await sdk.chat.completions.create(
            **params, stream=True, stream_options={"include_usage": True}
        )
        collector = replies.StreamCollector(self.config.model)
        async with stream:
            async for chunk in stream:
                if collector.started and replies.past_deadline(deadline):
                    raise _late(stream.response.request)()
                collector.add(chunk)
                if collector.full:
                    break
        return collector.result()


class _Call:
    """One ``complete`` call apart from sending: the structured-output forms tried in turn,
    the cache, the fallback to the next form when the server rejects one, and the accounting
    of the outcome. Kept apart so the sync and async entry points share all of it and differ
    only in how they send a request (with retries)."""

    def __init__(
        self,
        client: ChatClient,
        messages: Sequence[ChatMessage],
        json_schema: dict[str, Any] | None,
        tags: UsageTags | None,
    ):
        self.client = client
        self.messages = messages
        self.json_schema = json_schema
        self.tags = tags
        self.forms = structured.forms_to_try(client.config) if json_schema is not None else ["none"]
        self.started = time.perf_counter()
        self.attempts = 0  # of the current form; counted by the attempt itself
        self.reply: dict[str, Any] | None = None  # the server's answer, set by the sender
        self._form = ""
        self._number = 0
        self._prepared: _Prepared | None = None
        self._result: ChatResult | None = None

    def requests(self) -> Iterator[_Prepared]:
        """Each form's request in turn, until one is answered from the cache or the server
        (the sender sets ``reply``); the next form comes only when ``sending`` let the last
        one fall back. The answer is cached and accounted here, outside ``sending``, so a
        failure there is not taken for the server's."""
        for number, form in enumerate(self.forms):
            self._number, self._form = number, form
            self._prepared = self.client._prepare(self.messages, self.json_schema, self._form)
            self._result = self.client._from_cache(self._prepared, self.tags)
            if self._result is not None:
                return
            self.attempts = 0
            yield self._prepared
            if self.reply is not None:
                self._result = self.client._finish(
                    self._prepared, self.reply, self.started, self.attempts, self.tags,
                    self._form, self.json_schema,
                )  # fmt: skip
                return

    @contextmanager
    def sending(self) -> Iterator[None]:
        """Around one form's send: a rejected form falls back (the error is swallowed and
        ``requests`` goes on); any other failure is accounted and raised as the caller's."""
        assert self._prepared is not None, "sending() belongs inside requests()"
        try:
            yield
        except Exception as exc:
            client = self.client
            if client._falls_back(exc, self._form, self._number, len(self.forms)):
                return
            error = client._failed(exc, self._prepared, self.attempts, self.tags)
            if error is exc:
                raise
            raise error from exc

    def result(self) -> ChatResult:
        if self._result is None:
            raise AssertionError("unreachable: the last form never falls back")
        return self._result


_PATH = "/chat/completions"
#: Ask the SDK for the response with its body unread (``with_streaming_response`` does this).
_RAW: Any = {"headers": {"X-Stainless-Raw-Response": "stream"}}


def _late(request: Any) -> Callable[[], Exception]:
    """The error of a request past its deadline: a timeout, as the SDK's own."""

    def error() -> Exception:
        openai = require("openai", "llm")
        return cast(Exception, openai.APITimeoutError(request=request))

    return error


async def _until(
    chunks: AsyncIterator[bytes], deadline: float, late: Callable[[], Exception]
) -> AsyncIterator[bytes]:
    """The chunks of an async body until ``deadline``, then ``late()``; stops reading once the
    body is past ``replies.MAX_BODY_BYTES`` (``read_body`` then refuses it)."""
    size = 0
    async for chunk in chunks:
        if size and replies.past_deadline(deadline):
            raise late()
        yield chunk
        size += len(chunk)
        if size > replies.MAX_BODY_BYTES:
            return


def _completion_type() -> Any:
    # ``post`` (the SDK's documented way to call a route directly) skips the typed-parameter
    # transform of ``chat.completions.create``, a fifth of the client's CPU per request; we
    # build the body ourselves. Streaming keeps ``create``, which sets up the SSE decoder.
    return require("openai.types.chat", "llm").ChatCompletion


__all__ = ["ChatClient", "ChatResult", "ModelCallError", "shared_limit"]
