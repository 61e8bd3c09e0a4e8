"""A loopback ADB server whose one device is SimPhone: Android tests without hardware.

It speaks the ADB *host* protocol that ``adbutils`` and the real ``adb`` client speak to the
adb server on tcp:5037: a request is 4 hex digits of length and the text; the answer ``OKAY``
(with a length-prefixed payload for host queries) or ``FAIL`` and a message. Served:
``host:version`` (answering the bundled ``adb``'s own version, so the client does not kill it
and start a real server), ``host:devices``, ``host:devices-l``, ``host:features``,
``host:transport:<serial>`` / ``host:transport-any`` / ``host:transport-id:<n>``,
``host:tport:…`` (newer clients), ``host-serial:<serial>:<query>``, ``host:kill``, and on a
chosen device ``shell:<command>`` and ``exec-out:<command>`` (raw output, then close) and
``shell,v2,…:<command>`` (packets). What each shell command does is
:class:`guigraph.envs.simphone.adb_device.SimDevice`.

``FakeAdbServer`` binds 127.0.0.1 (a free port by default), serves from daemon threads and
stops on ``close()``, on ``host:kill``, or after ``lifetime_s`` seconds when given.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from typing import Any

from guigraph.envs.simphone.adb_device import SimDevice

#: What ``adb version`` of the adb bundled by adbutils says (1.0.41): its server protocol.
ADB_SERVER_VERSION = 41
#: Features the fake device has: no ``shell_v2``, so clients use plain ``shell:``.
FEATURES = "cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,abb_exec"


class FakeAdbServer:
    """``with FakeAdbServer() as server: server.port, server.device`` (a :class:`SimDevice`)."""

    def __init__(
        self,
        port: int = 0,
        devices: list[SimDevice] | None = None,
        lifetime_s: float | None = None,
        **device_options: Any,
    ) -> None:
        self.devices = devices or [SimDevice(**device_options)]
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(64)
        self._sock.settimeout(0.2)
        self.port: int = self._sock.getsockname()[1]
        self.requests: list[str] = []
        self._stop = threading.Event()
        self._deadline = time.monotonic() + lifetime_s if lifetime_s else None
        self._thread = threading.Thread(target=self._serve, name="fake-adb", daemon=True)
        self._thread.start()

    @property
    def device(self) -> SimDevice:
        return self.devices[0]

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the server stops (``host:kill``, ``close``, its lifetime); True if so."""
        return self._stop.wait(timeout)

    def __enter__(self) -> FakeAdbServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Serving -------------------------------------------------------------------------------
    def _serve(self) -> None:
        try:
            while not self._stop.is_set():
                if self._deadline is not None and time.monotonic() > self._deadline:
                    break
                try:
                    conn, _ = self._sock.accept()
                except TimeoutError:
                    continue
                except OSError:
                    break
                threading.Thread(target=self._handle, args=(conn,), daemon=True).start()
        finally:
            self._stop.set()
            self._sock.close()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            with conn:
                _Session(self, conn).run()
        except OSError:
            pass  # the client went away


class _Session:
    """One client connection: host requests, then (after a transport) one device service."""

    def __init__(self, server: FakeAdbServer, conn: socket.socket) -> None:
        self.server, self.conn = server, conn
        self.device: SimDevice | None = None

    def run(self) -> None:
        while True:
            request = self._read_request()
            if request is None:
                return
            self.server.requests.append(request)
            if self.device is not None:
                self._device_service(request)
                return
            if not self._host(request):
                return

    def _read_request(self) -> str | None:
        head = self._recv_exact(4)
        if head is None:
            return None
        return (self._recv_exact(int(head, 16)) or b"").decode("utf-8", "replace")

    def _recv_exact(self, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = self.conn.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def _okay(self, payload: str | None = None) -> None:
        if payload is None:
            self.conn.sendall(b"OKAY")
            return
        data = payload.encode()
        self.conn.sendall(b"OKAY" + f"{len(data):04x}".encode() + data)

    def _fail(self, message: str) -> None:
        data = message.encode()
        self.conn.sendall(b"FAIL" + f"{len(data):04x}".encode() + data)

    def _find(self, serial: str | None) -> SimDevice | None:
        alive = [d for d in self.server.devices if "unplugged" not in d.faults]
        if serial is None:
            return alive[0] if len(alive) == 1 else None
        if serial.isdigit():  # a transport id: the device's place on the server, from 1
            index = int(serial) - 1
            everyone = self.server.devices
            found = everyone[index] if 0 <= index < len(everyone) else None
            return found if any(found is d for d in alive) else None
        return next((d for d in alive if d.serial == serial), None)

    def _host(self, request: str) -> bool:
        """Answer a host request; True when the connection goes on (a transport was chosen)."""
        devices = [d for d in self.server.devices if "unplugged" not in d.faults]
        if request == "host:version":
            self._okay(f"{ADB_SERVER_VERSION:04x}")
        elif request == "host:devices":
            self._okay("".join(f"{d.serial}\tdevice\n" for d in devices))
        elif request == "host:devices-l":
            ids = {id(d): n for n, d in enumerate(self.server.devices, start=1)}
            self._okay("".join(_long_line(d, ids[id(d)]) for d in devices))
        elif request == "host:kill":
            self._okay()
            self.server._stop.set()
        elif request.startswith(("host:transport", "host:tport:")):
            return self._transport(request)
        elif request.startswith(("host-serial:", "host-transport-id:", "host:")):
            self._query(request)
        else:
            self._fail(f"unknown host service {request!r}")
        return False

    def _transport(self, request: str) -> bool:
        kind = request.split(":", 2)[1]
        target = request.split(":", 2)[2] if request.count(":") >= 2 else ""
        serial: str | None
        if kind == "tport":
            mode, _, value = target.partition(":")
            serial = value if mode in ("serial", "transport-id") else None
        elif kind == "transport":
            serial = target
        else:  # transport-any, transport-usb, transport-local, transport-id:N
            serial = target if kind == "transport-id" else None
        device = self._find(serial)
        if device is None:
            wanted = f"'{serial}'" if serial else "any device"
            self._fail(f"device {wanted} not found")
            return False
        self.device = device
        self._okay()
        if kind == "tport":
            number = next(n for n, d in enumerate(self.server.devices, 1) if d is device)
            self.conn.sendall(struct.pack("<Q", number))
        return True

    def _query(self, request: str) -> None:
        """``host-serial:<s>:<q>``, ``host-transport-id:<n>:<q>`` or ``host:<q>``."""
        if request.startswith("host-serial:"):
            rest = request.removeprefix("host-serial:")
            serial, _, query = rest.rpartition(":")
        elif request.startswith("host-transport-id:"):
            serial, _, query = request.removeprefix("host-transport-id:").partition(":")
        else:
            serial, query = None, request.removeprefix("host:")
        device = self._find(serial)
        if device is None:
            self._fail(f"device '{serial}' not found" if serial else "no devices/emulators found")
            return
        answers = {
            "features": FEATURES,
            "get-state": "device",
            "get-serialno": device.serial,
            "get-devpath": "virtual",
            "host-features": FEATURES,
        }
        if query in answers:
            self._okay(answers[query])
        else:
            self._fail(f"unknown host service {request!r}")

    # Device services -----------------------------------------------------------------------
    def _device_service(self, request: str) -> None:
        device = self.device
        assert device is not None
        service, _, command = request.partition(":")
        if service in ("shell", "exec-out"):
            self._shell(device, command, v2=False)
        elif service.startswith("shell,"):
            self._shell(device, command, v2="v2" in service.split(","))
        else:
            self._fail(f"service {service!r} is not supported by the SimPhone device")

    def _shell(self, device: SimDevice, command: str, v2: bool) -> None:
        result = device.shell(command)
        if result.stream is not None:
            self._stream(device, result.stream, v2)
            return
        self._okay()
        if v2:
            self.conn.sendall(_packet(1, result.output) + _packet(3, b"\x00"))
        else:
            self.conn.sendall(result.output)

    def _stream(self, device: SimDevice, start: Any, v2: bool) -> None:
        """Send what the device streams until the client hangs up or the server stops."""
        conn = self.conn

        def write(data: bytes) -> bool:
            try:
                conn.sendall(_packet(1, data) if v2 else data)
                return True
            except OSError:
                return False

        with device.lock:  # no event is written before the OKAY
            self._okay()
            start(write)
        conn.settimeout(0.2)
        try:
            while not self.server.stopped:
                try:
                    if not conn.recv(1024):
                        break
                except TimeoutError:
                    continue
        finally:
            device.unlisten(write)


def _packet(kind: int, data: bytes) -> bytes:
    return struct.pack("<BI", kind, len(data)) + data


def _long_line(device: SimDevice, transport: int) -> str:
    profile = device.profile
    model = profile.name.replace(" ", "_")
    return (
        f"{device.serial:<22} device product:{profile.product} model:{model} "
        f"device:{profile.product} transport_id:{transport}\n"
    )
