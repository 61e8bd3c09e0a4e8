"""Running a task file's checks (``envs.web.taskfile``) once the team is done.

Page checks read the final page (its URL, its text, a CSS selector); the others ask the site or
the machine (an HTTP GET, a program's output, a file). A check that cannot run (the server does
not answer, the program fails to start, the selector is not CSS) fails the task with the reason;
nothing here raises. Details name a check by its template, never by a secret's value.
"""

from __future__ import annotations

import re
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from guigraph.envs.base import Evaluation
from guigraph.envs.web.taskfile import Check, fill

#: Bytes read from an HTTP answer, a program's output or a file.
READ_LIMIT = 5_000_000


@dataclass(frozen=True)
class FinalPage:
    """What page checks read: the URL, the page's text, and how many elements a CSS selector
    finds (raises on a selector that is not CSS)."""

    url: str
    text: str
    count: Callable[[str], int]


class CannotRun(Exception):
    """The check could not be carried out (as opposed to: it ran and found nothing)."""


def evaluate(
    checks: Sequence[Check], values: Mapping[str, str], secrets: Mapping[str, str],
    page: FinalPage | None,
) -> Evaluation | None:  # fmt: skip
    """Every check must pass; None when the task has no checks (nothing can tell)."""
    if not checks:
        return None
    everything = {**values, **secrets}
    for number, check in enumerate(checks, 1):
        shown = _describe(check, values)
        try:
            passed = _run(check, everything, page) == check.present
        except CannotRun as exc:
            return Evaluation(False, 0.0, f"check {number} ({shown}) could not run: {exc}")
        if not passed:
            return Evaluation(False, 0.0, f"check {number} failed: {shown}")
    return Evaluation(True, 1.0, f"all {len(checks)} checks passed")


def _run(check: Check, values: Mapping[str, str], page: FinalPage | None) -> bool:
    kind = check.kind
    if kind in ("url", "text", "element"):
        if page is None:
            raise CannotRun("no page is open")
        if check.url is not None:
            return _glob(fill(check.url, values)).fullmatch(page.url) is not None
        if check.text is not None:
            return _norm(fill(check.text, values)) in _norm(page.text)
        try:
            return page.count(fill(check.element or "", values)) > 0
        except Exception as exc:
            raise CannotRun(_line(exc)) from exc
    wanted = _norm(fill(check.contains or "", values))
    if check.http_get is not None:
        return wanted in _norm(_http_get(fill(check.http_get, values), check.timeout_s))
    if check.command is not None:
        argv = [fill(part, values) for part in check.command]
        return wanted in _norm(_output(argv, check.timeout_s))
    return wanted in _norm(_read(Path(fill(check.file or "", values))))


def _http_get(url: str, timeout_s: float) -> str:
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as answer:
            return answer.read(READ_LIMIT).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.read(READ_LIMIT).decode("utf-8", "replace") if exc.fp else ""
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CannotRun(f"GET {url}: {reason}") from exc


def _output(argv: list[str], timeout_s: float) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout_s, check=False)
    except FileNotFoundError as exc:
        raise CannotRun(f"no program {argv[0]!r}") from exc
    except subprocess.TimeoutExpired as exc:
        raise CannotRun(f"{argv[0]} took more than {timeout_s:g} s") from exc
    except OSError as exc:
        raise CannotRun(f"{argv[0]}: {exc.strerror or exc}") from exc
    return done.stdout[:READ_LIMIT].decode("utf-8", "replace")


def _read(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(READ_LIMIT).decode("utf-8", "replace")
    except FileNotFoundError:
        return ""  # not there (yet): the check fails, or passes with present = false
    except OSError as exc:
        raise CannotRun(f"{path}: {exc.strerror or exc}") from exc


def _glob(pattern: str) -> re.Pattern[str]:
    """``*`` is any run of characters; everything else (``?`` of a query too) is literal."""
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")))


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def _describe(check: Check, values: Mapping[str, str]) -> str:
    kind = check.kind
    target = getattr(check, kind)
    shown = " ".join(target) if isinstance(target, list) else str(target)
    text = f"{kind} {fill(shown, values)!r}"
    if check.contains is not None:
        text += f" contains {fill(check.contains, values)!r}"
    return text if check.present else f"not {text}"


def _line(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else type(exc).__name__
