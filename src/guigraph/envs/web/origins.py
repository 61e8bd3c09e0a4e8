"""Where a web task may go: the origins a run is confined to.

A model-driven run does what the model proposes, and a page or a model can propose anything: a
local file (``file:///etc/passwd``), a ``data:`` page, another site that receives what the run
has seen. The web world therefore keeps each task inside an allow-list:

- the task's own origin (``scheme://host:port`` of the page it starts on);
- a task that starts on a local file may visit the files of that file's folder and below (a
  MiniWoB page and its neighbours), and one that starts on a ``data:`` page that page only;
- what the user adds (``--allow-origin``): ``https://host[:port]`` (that origin),
  ``host[:port]`` or ``*.host`` (that host, or its subdomains, over http or https), ``*``
  (any http or https site), or a ``file:///folder/`` (the files below it).

``about:blank`` is always allowed (a tab starts there). ``file:`` and ``data:`` pages are never
allowed by ``*``: only a task that starts there, or an explicit ``file:`` folder, reaches them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from guigraph.errors import ConfigError

_WEB_SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class OriginRule:
    """One allowed place. ``scheme`` None: http or https; ``port`` None: any port."""

    host: str = ""  # "" with scheme None: any site; "*.x" a subdomain of x
    scheme: str | None = None
    port: int | None = None
    path_prefix: str = ""  # file: the folder's URL; data: the whole URL

    def allows(self, url: str) -> bool:
        if self.path_prefix:
            return url == self.path_prefix or (
                self.path_prefix.endswith("/") and url.startswith(self.path_prefix)
            )
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in _WEB_SCHEMES or (self.scheme is not None and scheme != self.scheme):
            return False
        host = (parts.hostname or "").lower()
        if self.host.startswith("*."):
            if not host.endswith(self.host[1:]):
                return False
        elif self.host and host != self.host:
            return False
        try:
            port = parts.port or _DEFAULT_PORTS[scheme]
        except ValueError:
            return False
        return self.port is None or port == self.port

    def __str__(self) -> str:
        if self.path_prefix:
            return self.path_prefix if len(self.path_prefix) < 60 else self.path_prefix[:57] + "..."
        if not self.host:
            return "any http(s) site"
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.scheme}://{self.host}{port}" if self.scheme else f"{self.host}{port}"


def rule_of_start(url: str) -> OriginRule | None:
    """The place a task that starts at ``url`` may stay in (None: a blank start page)."""
    text = url.strip()
    if not text or text.startswith("about:"):
        return None
    if text.startswith("data:"):
        return OriginRule(path_prefix=text)
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme == "file":
        folder = text.split("#", 1)[0].split("?", 1)[0].rsplit("/", 1)[0] + "/"
        return OriginRule(path_prefix=folder)
    if scheme in _WEB_SCHEMES and parts.hostname:
        return OriginRule(parts.hostname.lower(), scheme, parts.port or _DEFAULT_PORTS[scheme])
    return OriginRule(path_prefix=text)  # another scheme: that very page


def parse_rule(text: str) -> OriginRule:
    """One ``--allow-origin`` value; a malformed one is a :class:`ConfigError` saying why."""
    value = text.strip()
    if value == "*":
        return OriginRule()
    if value.startswith("file:"):
        return OriginRule(path_prefix=value if value.endswith("/") else value + "/")
    if "://" in value:
        parts = urlsplit(value)
        scheme = parts.scheme.lower()
        if scheme not in _WEB_SCHEMES or not parts.hostname or parts.path not in ("", "/"):
            raise ConfigError(
                f"--allow-origin {text!r}: expected scheme://host[:port] (http or https), "
                "host[:port], *.host, * or a file:///folder/"
            )
        return OriginRule(parts.hostname.lower(), scheme, _port(parts, text))
    parts = urlsplit(f"http://{value}")
    host = (parts.hostname or "").lower()
    if not host or parts.path or " " in value:
        raise ConfigError(
            f"--allow-origin {text!r}: expected a host (example.org, 127.0.0.1:8080, *.example.org)"
        )
    wildcard = value.lower().startswith("*.")
    return OriginRule(
        f"*.{host.removeprefix('*.')}" if wildcard else host, None, _port(parts, text)
    )


def _port(parts: SplitResult, text: str) -> int | None:
    try:
        return parts.port
    except ValueError as exc:
        raise ConfigError(f"--allow-origin {text!r}: {exc}") from exc


@dataclass(frozen=True)
class Origins:
    """The places one task may visit: its start's and the user's."""

    rules: tuple[OriginRule, ...] = ()

    @classmethod
    def for_task(cls, start_url: str, allowed: Iterable[OriginRule] = ()) -> Origins:
        start = rule_of_start(start_url)
        return cls(((start,) if start is not None else ()) + tuple(allowed))

    def allows(self, url: str) -> bool:
        if url.strip().startswith("about:blank"):
            return True
        return any(rule.allows(url.strip()) for rule in self.rules)

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be visited (None when it may)."""
        if self.allows(url):
            return None
        shown = url if len(url) <= 120 else url[:117] + "..."
        where = (
            ", ".join(str(rule) for rule in self.rules) or "none: the task starts on a blank page"
        )
        return (
            f"refused to open {shown}: outside this task's origins ({where}); "
            "--allow-origin widens them"
        )
