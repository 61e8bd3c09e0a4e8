"""One Android device over ADB (``adbutils``): choosing it, its shell, and what it reports.

The ADB server is the one at ``ANDROID_ADB_SERVER_HOST``:``ANDROID_ADB_SERVER_PORT``
(127.0.0.1:5037 by default), as for ``adb`` itself. guigraph never starts one: adbutils would
start a real ``adb`` daemon whenever a connection fails (and leave it running), so connections
here are made without that fallback, and a missing server or device is one clear
:class:`~guigraph.errors.EnvError`.
"""

from __future__ import annotations

import contextlib
import os
import socket
from dataclasses import dataclass
from typing import Any

from guigraph.envs.android import uixml
from guigraph.errors import EnvError, require
from guigraph.geometry import ScreenSize

#: Seconds one shell command may take (a ``uiautomator dump`` takes 1-3 s on a phone).
SHELL_TIMEOUT_S = 20.0


def server_address() -> tuple[str, int]:
    host = os.environ.get("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    port = os.environ.get("ANDROID_ADB_SERVER_PORT", "5037")
    try:
        return host, int(port)
    except ValueError:
        raise EnvError(f"ANDROID_ADB_SERVER_PORT={port!r} is not a port number") from None


def _client(host: str, port: int) -> Any:
    """An adbutils client whose connections never start an adb server of their own."""
    adbutils = require("adbutils", "android")
    from adbutils._adb import AdbConnection

    class _NoStartConnection(AdbConnection):
        def _safe_connect(self) -> Any:
            return self._create_socket()

        def close(self) -> None:
            # adbutils pauses 10 ms in every close; a whole answer has been read here by then.
            sock = getattr(self, "_AdbConnection__conn", None)
            if sock is None:
                return
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)
            sock.close()
            self._AdbConnection__conn = None

    class _Client(adbutils.AdbClient):  # type: ignore[name-defined]
        def make_connection(self, timeout: float | None = None) -> Any:
            try:
                conn = _NoStartConnection(self.host, self.port)
            except (adbutils.AdbError, OSError) as exc:
                raise EnvError(
                    f"no ADB server answers at {self.host}:{self.port} ({exc}); start one with "
                    "`adb start-server` (or `guigraph sim adb-server` for the simulated phone)"
                ) from None
            if timeout:
                conn.conn.settimeout(timeout)
            return conn

    return _Client(host=host, port=port, socket_timeout=SHELL_TIMEOUT_S)


@dataclass(frozen=True)
class DeviceSummary:
    serial: str
    state: str
    model: str = ""
    android: str = ""
    width: int = 0
    height: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "serial": self.serial,
            "state": self.state,
            "model": self.model,
            "android": self.android,
            "screen": f"{self.width}x{self.height}" if self.width else "",
        }


class AdbDevice:
    """A device's shell; every failure is an :class:`EnvError` naming the device."""

    def __init__(self, serial: str | None = None) -> None:
        self.host, self.port = server_address()
        self.client = _client(self.host, self.port)
        self.serial = choose_serial(self.client, serial)
        # By transport id: adbutils asks the server's version before every command by serial.
        ids = {i.serial: i.tags.get("transport_id") for i in self.client.list(extended=True)}
        transport = ids.get(self.serial)
        if transport and transport.isdigit():
            self._device = self.client.device(transport_id=int(transport))
        else:
            self._device = self.client.device(serial=self.serial)

    def shell(self, command: str, timeout: float = SHELL_TIMEOUT_S) -> str:
        return self.shell_bytes(command, timeout).decode("utf-8", "replace")

    def shell_bytes(
        self, command: str, timeout: float = SHELL_TIMEOUT_S, binary: bool = False
    ) -> bytes:
        """The command's output; ``binary`` runs it through ``exec-out:`` (never a terminal,
        so a PNG is not mangled by newline translation on old devices)."""
        adbutils = require("adbutils", "android")
        try:
            if binary:
                out = self._exec_out(command, timeout)
            else:
                out = self._device.shell(command, timeout=timeout, encoding=None)
        except EnvError as exc:
            raise EnvError(f"device {self.serial} is gone: {exc}") from None
        except (adbutils.AdbError, OSError) as exc:
            if "not found" in str(exc) or "offline" in str(exc):
                raise EnvError(f"device {self.serial} is gone (unplugged?): {exc}") from None
            raise EnvError(f"device {self.serial}: `{command[:60]}` failed: {exc}") from None
        return bytes(out)

    def _exec_out(self, command: str, timeout: float) -> bytes:
        conn = self._device.open_transport(timeout=timeout)
        try:
            conn.send_command(f"exec-out:{command}")
            conn.check_okay()
            return bytes(conn.read_until_close(encoding=None))
        finally:
            conn.close()

    def stream(self, command: str) -> Any:
        """A shell whose output is read as it comes (an adbutils connection: ``.conn``)."""
        adbutils = require("adbutils", "android")
        try:
            return self._device.shell(command, stream=True)
        except (adbutils.AdbError, OSError) as exc:
            raise EnvError(f"device {self.serial}: `{command}` failed: {exc}") from None

    # What the device reports ---------------------------------------------------------------
    def prop(self, name: str) -> str:
        return self.shell(f"getprop {name}").strip()

    def screen(self) -> ScreenSize:
        """The screen as the screenshot has it: ``wm size`` (override included), turned by the
        rotation (``wm size`` reports the natural, portrait orientation)."""
        size = uixml.wm_size(self.shell("wm size"))
        if self.rotation() % 2 == 1:
            return ScreenSize(size.height, size.width)
        return size

    def rotation(self) -> int:
        return uixml.rotation(self.shell("dumpsys input"))

    def foreground(self) -> tuple[str, str]:
        window = self.shell("dumpsys window")
        package, activity = uixml.foreground(window)
        if not package:
            package, activity = uixml.foreground("", self.shell("dumpsys activity activities"))
        return package, activity

    def summary(self) -> DeviceSummary:
        size = self.screen()
        return DeviceSummary(
            self.serial,
            "device",
            self.prop("ro.product.model"),
            self.prop("ro.build.version.release"),
            size.width,
            size.height,
        )


def list_devices() -> list[tuple[str, str]]:
    """(serial, state) of every device the ADB server knows."""
    client = _client(*server_address())
    return [(info.serial, info.state) for info in client.list()]


def choose_serial(client: Any, serial: str | None) -> str:
    """``serial`` when the server has it ready; without one, the only device, else an error
    listing them."""
    infos = [(info.serial, info.state) for info in client.list()]
    ready = [s for s, state in infos if state == "device"]
    listing = ", ".join(f"{s} ({state})" for s, state in infos) or "none"
    if serial:
        state = dict(infos).get(serial)
        if state is None:
            raise EnvError(f"no device {serial!r} on the ADB server; attached: {listing}")
        if state != "device":
            raise EnvError(f"device {serial!r} is {state}, not ready (authorize it or wait)")
        return serial
    if len(ready) == 1:
        return ready[0]
    if not ready:
        raise EnvError(f"no Android device is attached (ADB server sees: {listing})")
    raise EnvError(f"{len(ready)} devices are attached ({listing}): choose one with --serial")
