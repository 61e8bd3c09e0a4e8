"""MiniWoB++'s own demonstration recorder (``html/core/record.js``), run for real.

A task page opened with ``?record=1&server=URL`` loads ``record.js``: it listens to the
page's mouse, key and scroll events (once per listener phase), keeps the element tree with
boxes before each one (``core.getDOMInfo``), and when the episode ends POSTs the whole
demonstration as JSON to ``URL/record`` — what people's demonstration sets were made with.
:class:`Collector` is that server on the loopback (it saves each POST as the package's
``scripts/record.py`` does: ``<task>_<time>.json``); :class:`RecordJsWebEnv` is the web world
with the recorder on, so that anyone acting through it (a scripted person, an agent) leaves
record.js demonstrations behind, made of real input events.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

from guigraph.envs.base import StepResult
from guigraph.envs.web.env import WebEnv
from guigraph.errors import EnvError
from guigraph.types import Action, ActionType, Task

#: record.js sends the demonstration 500 ms after the episode ends.
ARRIVAL_TIMEOUT_S = 10.0


class Collector:
    """A loopback server that saves every demonstration POSTed to ``/record`` into ``out``
    (gzipped when ``compress``); stops with :meth:`close` (or as a context manager)."""

    def __init__(self, out: Path, compress: bool = False) -> None:
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.compress = compress
        self.saved: list[Path] = []
        self._arrived = threading.Condition()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def wait_for(self, count: int, timeout: float = ARRIVAL_TIMEOUT_S) -> bool:
        """Whether ``count`` demonstrations have arrived within ``timeout`` seconds."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.saved) >= count, timeout)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Collector:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _save(self, body: bytes) -> Path:
        data = json.loads(body.decode("utf-8"))
        stamp = time.strftime("%m%d%H%M%S", time.gmtime())
        name = f"{data.get('taskName', 'demo')}_{stamp}_{len(self.saved):04d}.json"
        path = self.out / (name + ".gz" if self.compress else name)
        payload = json.dumps(data).encode("utf-8")
        path.write_bytes(gzip.compress(payload) if self.compress else payload)
        with self._arrived:
            self.saved.append(path)
            self._arrived.notify_all()
        return path

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    path = collector._save(self.rfile.read(length))
                except (ValueError, UnicodeDecodeError) as exc:
                    self._reply(400, f"not a demonstration: {exc}")
                    return
                self._reply(200, f"saved to {path.name}")

            def _reply(self, status: int, text: str) -> None:
                body = text.encode("utf-8")
                self.send_response(status)
                # The task page is a file:// page: its origin is "null".
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return None  # quiet: the collector's caller reports what was saved

        return Handler


class RecordJsWebEnv(WebEnv):
    """The web world with MiniWoB++'s recorder on every task page: each episode that ends
    (the page gave its reward) is POSTed by record.js to ``collector``; opening the next page
    and :meth:`close` wait for the one in flight, so none is lost to a page closed early."""

    def __init__(self, collector: Collector, **options: Any) -> None:
        super().__init__(**options)
        self.collector = collector
        self.ended = 0  # episodes that ended on the page, each owing one demonstration

    def make_task(self, spec: str, seed: int) -> Task:
        task = super().make_task(spec, seed)
        if task.params.get("miniwob"):
            url = self._recording_url(task.params["url"])
            task = replace(task, params={**task.params, "url": url})
        return task

    def step(self, action: Action) -> StepResult:
        result = super().step(action)
        if result.done and action.type not in (ActionType.COMPLETE, ActionType.IMPOSSIBLE):
            self.ended += 1
        return result

    def flush(self) -> None:
        """Wait until every episode that ended has its demonstration saved."""
        if not self.collector.wait_for(self.ended):
            raise EnvError(f"record.js sent no demonstration to {self.collector.url}")

    def close(self) -> None:
        try:
            self.flush()
        finally:
            super().close()

    def _open_miniwob(self, url: str, seed: int) -> str:
        self.flush()  # a new page closes the old one: its demonstration must be in first
        return super()._open_miniwob(self._recording_url(url), seed)

    def _recording_url(self, url: str) -> str:
        if "?" in url:
            return url
        return f"{url}?record=1&server={quote(self.collector.url, safe=':/')}"
