"""The error hierarchy: one root, narrow subclasses that say what went wrong and where.

Model mistakes (unparseable output, an action outside the space) are *data* for the agent loop;
the exceptions here are for bad input files, bad settings, dead servers and devices.
"""

from __future__ import annotations

from pathlib import Path


class GuigraphError(Exception):
    """Root of every error guigraph raises on purpose."""


class ConfigError(GuigraphError):
    """A setting is missing or has a value that cannot work."""


class DatasetError(GuigraphError):
    """A file on disk does not have the shape we expect.

    The message names the file, the field and what was expected, so that a user with 8,000
    annotation files can find and fix the one that is wrong.
    """

    def __init__(
        self, path: str | Path | None, field: str | None, expected: str, got: object = None
    ):
        self.path = str(path) if path is not None else None
        self.field = field
        self.expected = expected
        self.got = got
        where = self.path or "<input>"
        what = f" field {field!r}" if field else ""
        found = f", got {_short(got)}" if got is not None else ""
        super().__init__(f"{where}:{what} expected {expected}{found}")


class ActionError(GuigraphError, ValueError):
    """An action is malformed (missing point for a click, unknown direction, ...)."""


class EnvError(GuigraphError):
    """An environment failed in a way the agent cannot recover from (dead device, crash)."""


class KnowledgeBaseError(GuigraphError):
    """A knowledge base folder is missing, corrupt or of an unsupported schema version."""


class FolderBusyError(GuigraphError):
    """Another guigraph process is writing the same folder (a build, a demo)."""


class ModelCallError(GuigraphError):
    """A model server call failed after all retries (unreachable, 4xx, repeated 5xx, timeout)."""


class ResponseParseError(GuigraphError):
    """A model reply could not be parsed; carries the raw text so the loop can give feedback."""

    def __init__(self, message: str, raw: str):
        self.raw = raw
        super().__init__(f"{message}; reply began: {_short(raw)}")


class MissingExtraError(GuigraphError, ImportError):
    """An optional dependency is not installed; the message says which extra brings it."""

    def __init__(self, module: str, extra: str):
        self.module = module
        self.extra = extra
        super().__init__(
            f"{module!r} is not installed; install it with: pip install 'guigraph[{extra}]'"
        )


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def require(module: str, extra: str):
    """Import an optional dependency, or fail with an install hint naming the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(module, extra) from exc
