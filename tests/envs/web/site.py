"""A small web site on 127.0.0.1 for the web world's tests: pages by path, a form whose POST
is answered by a redirect, a slow XHR endpoint. Stopped by the fixture that starts it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar
from urllib.parse import parse_qs, urlsplit

Route = Callable[["Handler"], None]


class Handler(BaseHTTPRequestHandler):
    pages: ClassVar[Mapping[str, str]] = {}
    posted: ClassVar[list[dict[str, list[str]]]] = []

    def log_message(self, format: str, *args: object) -> None:
        return

    def _send(self, code: int, body: str = "", headers: Mapping[str, str] | None = None) -> None:
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        # A browser may drop a request it no longer wants (a favicon, a page it left): the
        # server's thread must not print a traceback into the output a test reads.
        with suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path == "/slow-data":
            time.sleep(float(parse_qs(parts.query).get("s", ["0.4"])[0]))
            self._send(200, "loaded late")
            return
        page = self.pages.get(parts.path)
        if page is None:
            self._send(404, "<p>no such page</p>")
            return
        self._send(200, page)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        form = parse_qs(self.rfile.read(length).decode())
        type(self).posted.append(form)
        time.sleep(0.2)  # a server that takes its time, as a real one does
        self._send(303, "", {"Location": "/done"})


@contextmanager
def serve(pages: Mapping[str, str]) -> Iterator[tuple[str, list[dict[str, list[str]]]]]:
    """``(base URL, forms posted)`` while the site runs."""
    posted: list[dict[str, list[str]]] = []
    handler = type("SiteHandler", (Handler,), {"pages": dict(pages), "posted": posted})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", posted
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
