"""Which model-call failures are worth another attempt, how long to wait, and the final error.

Transient: HTTP 408/409/429 and 5xx, timeouts, dropped or refused connections, and bodies that
are not a chat completion (a proxy's error page). Waits grow exponentially with full jitter
(AWS's "exponential backoff and jitter"), so that many clients hit by the same outage do not
retry in lockstep; a server's ``Retry-After`` is honoured up to ``backoff_max_s``. Everything
else (bad request, unknown model, refused key) fails at once with a message naming the model
and the server, never the key, and quoting the server's own message.

An error that comes back with the same status and message three times in a row is not
transient (a model whose chat template cannot take images answers every retry with the same
500): the third identical answer ends the call. Two in a row still get a retry: a busy server
answers several requests with the same generic 500 within seconds, and one more try is cheap.
Rate limits (429) and answers with ``Retry-After`` keep their retries. A rejected
``response_format`` is never retried: the client falls back to another form instead
(``guigraph.llm.structured``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from guigraph.errors import ModelCallError, require
from guigraph.llm.config import ModelConfig

if TYPE_CHECKING:
    from tenacity import AsyncRetrying, RetryCallState, Retrying

log = logging.getLogger("guigraph.llm")

_TRANSIENT_STATUS = {408, 409, 429}
#: Words in a server's message that say the ``response_format`` was the problem.
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "grammar")
#: Statuses that never mean "this form of structured output is not supported".
_NOT_FORMAT_STATUS = {401, 403, 404, 408, 409, 429}


class MalformedResponse(Exception):
    """The server answered 200 with something that is not a chat completion."""


def is_transient(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, MalformedResponse | openai.APIConnectionError):  # incl. timeouts
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _TRANSIENT_STATUS or exc.status_code >= 500
    return isinstance(exc, ValueError) and type(exc).__name__ == "JSONDecodeError"


def is_format_rejection(exc: BaseException) -> bool:
    """The server refused the request's ``response_format`` (not the request as a whole)."""
    import openai

    if not isinstance(exc, openai.APIStatusError) or exc.status_code in _NOT_FORMAT_STATUS:
        return False
    message = server_message(exc).lower()
    return any(word in message for word in _FORMAT_WORDS)


def _repeat_signature(exc: BaseException) -> tuple[int, str] | None:
    """What makes two errors "the same"; None for errors that are retried however often."""
    import openai

    if not isinstance(exc, openai.APIStatusError) or exc.status_code == 429:
        return None
    if _retry_after(exc) > 0:
        return None  # the server asks to come back later: that is transient by its own word
    return exc.status_code, server_message(exc)


#: Identical error answers in a row that end a call.
SAME_ERROR_LIMIT = 3


class _Decision:
    """Retry transient failures, except the third identical error answer in a row (per call)."""

    def __init__(self) -> None:
        self.last: tuple[int, str] | None = None
        self.repeats = 0

    def __call__(self, state: RetryCallState) -> bool:
        exc = state.outcome.exception() if state.outcome else None
        if exc is None or not is_transient(exc) or is_format_rejection(exc):
            return False
        signature = _repeat_signature(exc)
        same = signature is not None and signature == self.last
        self.repeats = self.repeats + 1 if same else 1
        self.last = signature
        if signature is not None and self.repeats >= SAME_ERROR_LIMIT:
            exc.guigraph_repeated = True  # type: ignore[attr-defined]
            return False
        return True


def is_model_failure(exc: BaseException) -> bool:
    """Failures of the server or the connection (as opposed to bugs in the caller)."""
    import openai

    return isinstance(exc, openai.OpenAIError) or is_transient(exc)


def _retry_after(exc: BaseException | None) -> float:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return 0.0
    try:
        return max(0.0, float(headers.get("retry-after", 0)))
    except (TypeError, ValueError):  # an HTTP date; rare from model servers
        return 0.0


class _Wait:
    def __init__(self, config: ModelConfig):
        tenacity = require("tenacity", "llm")
        self.jitter = tenacity.wait_random_exponential(
            multiplier=config.backoff_initial_s, max=config.backoff_max_s
        )
        self.cap = config.backoff_max_s

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        return max(self.jitter(state), min(_retry_after(exc), self.cap))


def _log_retry(what: str):
    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        log.warning(
            "model call to %s failed (%s); attempt %d, retrying in %.2fs",
            what,
            _describe_error(exc),
            state.attempt_number,
            wait,
        )

    return before_sleep


class RetryPolicy:
    """The retry settings of one client, built once; each call gets a fresh iterator."""

    def __init__(self, config: ModelConfig, what: str):
        tenacity = require("tenacity", "llm")
        self._tenacity = tenacity
        # Stop, wait and retry objects hold no per-call state, so calls can share them.
        self._kwargs: dict[str, Any] = {
            "stop": tenacity.stop_after_attempt(config.max_attempts),
            "wait": _Wait(config),
            "before_sleep": _log_retry(what),
            "reraise": True,
        }

    def sync(self) -> Retrying:
        retrying: Retrying = self._tenacity.Retrying(retry=_Decision(), **self._kwargs)
        return retrying

    def asynchronous(self) -> AsyncRetrying:
        retrying: AsyncRetrying = self._tenacity.AsyncRetrying(retry=_Decision(), **self._kwargs)
        return retrying


def _describe_error(exc: BaseException | None) -> str:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return f"connection failed: {type(cause).__name__ if cause else 'unknown'}"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: server said: {server_message(exc)}"
    return f"{type(exc).__name__}: {exc}"


def as_model_error(
    exc: BaseException, config: ModelConfig, attempts: int, images: int = 0
) -> ModelCallError:
    """The typed error a caller sees: what failed, where, after how many attempts, what the
    server said, and a hint when a request with images was refused."""
    error = _as_model_error(exc, config, attempts)
    if images and _refused(exc):
        error = ModelCallError(
            f"{error}; the request carried {images} image(s), which a model without vision "
            "refuses like this: if so, use --text-only (model setting vision: false)"
        )
    return error


def _refused(exc: BaseException) -> bool:
    import openai

    return (
        isinstance(exc, openai.APIStatusError)
        and exc.status_code not in _NOT_FORMAT_STATUS
        and not is_format_rejection(exc)
    )


def _as_model_error(exc: BaseException, config: ModelConfig, attempts: int) -> ModelCallError:
    """The typed error a caller sees: what failed, where, after how many attempts."""
    import openai

    if isinstance(exc, ModelCallError):
        return exc
    where = f"model {config.model!r} at {config.base_url}"
    if isinstance(exc, openai.NotFoundError):
        return ModelCallError(
            f"{where}: HTTP 404 not found: the server does not serve this model name (or the "
            f"base URL lacks its /v1 suffix); server said: {server_message(exc)}"
        )
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ModelCallError(
            f"{where}: HTTP {exc.status_code}: the server refused the API key "
            f"(set {config.api_key_env} or the model's api_key)"
        )
    if isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError):
        return ModelCallError(
            f"{where}: cannot reach the server ({_describe_error(exc)}) after {attempts} "
            "attempt(s); is it running, and is the base URL right?"
        )
    if getattr(exc, "guigraph_repeated", False):
        return ModelCallError(
            f"{where}: the same error {SAME_ERROR_LIMIT} times, not retried further "
            f"({attempts} attempts): "
            f"{_describe_error(exc)}"
        )
    if is_transient(exc) and not is_format_rejection(exc):
        return ModelCallError(
            f"{where}: gave up after {attempts} attempt(s): {_describe_error(exc)}"
        )
    return ModelCallError(f"{where}: {_describe_error(exc)}")


def server_message(exc: BaseException, limit: int = 300) -> str:
    """The server's own error message, on one line (some servers put a traceback in it)."""
    body = getattr(exc, "body", None)
    text = ""
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and "message" in error:
            text = str(error["message"])
        elif isinstance(error, str):
            text = error
    if not text:
        text = str(getattr(exc, "message", exc))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
