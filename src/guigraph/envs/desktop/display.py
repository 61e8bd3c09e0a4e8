"""An X display of the world's own (Xvfb + openbox) and the session each episode runs in.

:class:`Display` starts Xvfb on a free display number (Xvfb picks it and says which through
``-displayfd``) and openbox on it, and ends both by their tag (``envs.desktop.processes``).
:class:`Session` is one episode: a fresh home folder under a temporary directory, a D-Bus
session bus (which activates the accessibility bus the applications speak AT-SPI on) and the
applications the episode starts; ending it ends every process it started, the folder goes.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from guigraph.envs.desktop.processes import TAG_VARIABLE, end_tagged, new_tag
from guigraph.errors import ConfigError, EnvError

XVFB = "Xvfb"
WINDOW_MANAGER = "openbox"
DBUS_DAEMON = "dbus-daemon"
START_TIMEOUT_S = 30.0
#: GTK settings for a world whose screenshots repeat: no blinking caret, no animation.
PR_SET_PDEATHSIG = 1
#: Applications' settings in every episode's home (GSettings' keyfile backend: path -> key ->
#: GVariant text): nothing on screen may name the episode's temporary folder (mousepad's
#: title would show a file's full path), or the same screen would look new every run.
APP_SETTINGS = {"org/xfce/mousepad/preferences/window": {"path-in-title": "false"}}
GTK_SETTINGS = "[Settings]\ngtk-cursor-blink=false\ngtk-enable-animations=false\n"


def _die_with_parent() -> None:
    """In a child before exec: end when the Python process that started it ends, even killed
    (Linux's parent-death signal), so no display outlives a crashed run."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _need(program: str, package: str) -> str:
    found = shutil.which(program)
    if not found:
        raise ConfigError(
            f"the desktop world needs {program!r}: install Debian's {package} "
            f"(apt-get install {package})"
        )
    return found


class Display:
    """Xvfb and a window manager, started by :meth:`start`, ended by :meth:`close`."""

    def __init__(self, width: int = 1280, height: int = 800) -> None:
        if width < 320 or height < 240:
            raise ConfigError(f"the screen must be at least 320x240, got {width}x{height}")
        self.width, self.height = width, height
        self.tag = new_tag()
        self.name = ""  # ":<n>" once started
        self._root = Path(tempfile.mkdtemp(prefix="guigraph-desktop-"))
        self._episodes = itertools.count()
        self._started: list[subprocess.Popen[bytes]] = []

    @property
    def running(self) -> bool:
        return bool(self.name) and all(p.poll() is None for p in self._started)

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a process on this display (tagged as this world's)."""
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("DBUS_", "XDG_"))}
        keep.pop("NO_AT_BRIDGE", None)
        keep.update(DISPLAY=self.name, LANG="C.UTF-8", LC_ALL="C.UTF-8")
        keep[TAG_VARIABLE] = self.tag
        keep.update(extra)
        return keep

    def start(self) -> None:
        if self.running:
            return
        self.close()
        self._root.mkdir(parents=True, exist_ok=True)
        xvfb = _need(XVFB, "xvfb")
        wm = _need(WINDOW_MANAGER, "openbox")
        try:
            self._start_xvfb(xvfb)
            home = self._root / "wm"
            home.mkdir(exist_ok=True)
            self._started.append(
                subprocess.Popen(
                    [wm], env=self.env(HOME=str(home)), cwd=home,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    preexec_fn=_die_with_parent,
                )
            )  # fmt: skip
            self._wait_for_window_manager()
        except BaseException:
            self.close()
            raise

    def _start_xvfb(self, xvfb: str) -> None:
        read_end, write_end = os.pipe()
        try:
            screen = f"{self.width}x{self.height}x24"
            process = subprocess.Popen(
                [xvfb, "-displayfd", str(write_end), "-screen", "0", screen, "-nolisten", "tcp"],
                pass_fds=(write_end,), env=self.env(), stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, preexec_fn=_die_with_parent,
            )  # fmt: skip
            self._started.append(process)
            os.close(write_end)
            write_end = -1
            number = _read_line(read_end, START_TIMEOUT_S)
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
        if not number.strip().isdigit():
            error = b""
            if process.poll() is not None and process.stderr is not None:
                error = process.stderr.read()[-300:]
            raise EnvError(f"Xvfb did not start a display: {error.decode(errors='replace')}")
        self.name = f":{number.strip()}"

    def _wait_for_window_manager(self) -> None:
        from guigraph.envs.desktop import screen

        deadline = time.monotonic() + START_TIMEOUT_S
        while not screen.window_manager_running(self.name):
            if time.monotonic() > deadline:
                raise EnvError(f"openbox did not start on display {self.name}")
            if self._started[-1].poll() is not None:
                raise EnvError(f"openbox exited at once on display {self.name}")
            time.sleep(0.05)

    def new_session(self) -> Session:
        self.start()
        return Session(self, self._root / f"episode-{next(self._episodes)}")

    def close(self) -> None:
        """End Xvfb, openbox and every process still tagged as this world's; harmless twice."""
        _end(self.tag, self._started)
        self.name = ""
        shutil.rmtree(self._root, ignore_errors=True)


class Session:
    """One episode's home folder, D-Bus session and applications."""

    def __init__(self, display: Display, root: Path) -> None:
        self.display = display
        self.tag = f"{display.tag}/{root.name}"
        self.home = root / "home"
        self.runtime = root / "run"
        self.home.mkdir(parents=True)
        self.runtime.mkdir(mode=0o700)
        gtk = self.home / ".config" / "gtk-3.0"
        gtk.mkdir(parents=True)
        (gtk / "settings.ini").write_text(GTK_SETTINGS)
        keyfile = self.home / ".config" / "glib-2.0" / "settings" / "keyfile"
        keyfile.parent.mkdir(parents=True)
        keyfile.write_text(
            "".join(
                f"[{path}]\n" + "".join(f"{k}={v}\n" for k, v in keys.items()) + "\n"
                for path, keys in APP_SETTINGS.items()
            )
        )
        self.bus_address = ""
        self._started: list[subprocess.Popen[bytes]] = []
        try:
            self._start_bus()
        except BaseException:
            self.close()
            raise

    def env(self) -> dict[str, str]:
        extra = {
            "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "GSETTINGS_BACKEND": "keyfile",
            TAG_VARIABLE: self.tag,
        }
        if self.bus_address:
            extra["DBUS_SESSION_BUS_ADDRESS"] = self.bus_address
        return self.display.env(**extra)

    def _start_bus(self) -> None:
        daemon = _need(DBUS_DAEMON, "dbus-daemon")
        socket = self.runtime / "bus"
        process = subprocess.Popen(
            [daemon, "--session", "--nofork", f"--address=unix:path={socket}",
             "--print-address=1"],
            env=self.env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.home,
            preexec_fn=_die_with_parent,
        )  # fmt: skip
        self._started.append(process)
        assert process.stdout is not None
        address = _read_line(process.stdout.fileno(), START_TIMEOUT_S).strip()
        if not address.startswith("unix:"):
            raise EnvError("the D-Bus session bus did not start (dbus-daemon said nothing)")
        self.bus_address = address

    def launch(self, argv: list[str]) -> subprocess.Popen[bytes]:
        """Start a program in this session (its output kept for the error it may die with)."""
        log = open(self.runtime / f"{Path(argv[0]).name}.log", "wb")  # noqa: SIM115
        try:
            process = subprocess.Popen(
                argv, env=self.env(), cwd=self.home, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent,
            )  # fmt: skip
        except OSError as exc:
            raise EnvError(f"could not start {argv[0]!r}: {exc.strerror or exc}") from exc
        finally:
            log.close()
        self._started.append(process)
        return process

    def output_of(self, program: str) -> str:
        """The last lines a program launched in this session printed."""
        path = self.runtime / f"{Path(program).name}.log"
        with contextlib.suppress(OSError):
            lines = path.read_text(errors="replace").strip().splitlines()
            return " / ".join(lines[-3:])
        return ""

    def close(self) -> None:
        """End every process of this episode; harmless twice. The home folder goes with the
        display (a checker may still read what the episode wrote)."""
        _end(self.tag, self._started)

    def remove(self) -> None:
        """Delete the episode's folder (its home): after the world read what it needed."""
        shutil.rmtree(self.home.parent, ignore_errors=True)


def _end(tag: str, started: list[subprocess.Popen[bytes]]) -> None:
    """End every process of ``tag`` (whoever their parent is now), then reap our own."""
    end_tagged(tag)
    for process in started:
        with contextlib.suppress(Exception):
            process.kill()
            process.wait(timeout=2)
    started.clear()


def _read_line(fd: int, timeout_s: float) -> str:
    """Read from ``fd`` up to a newline, or what came before the timeout or end of file."""
    data = b""
    deadline = time.monotonic() + timeout_s
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 256)
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace")
