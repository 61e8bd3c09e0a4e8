"""A private DokuWiki (Debian's ``dokuwiki`` package) served on 127.0.0.1 by ``php -S``.

Each instance lives in a folder of its own: its configuration (a copy of Debian's defaults, with
the data folder, users and ACL of this instance), its pages, users and ACL. The system's own
wiki (``/etc/dokuwiki``, ``/var/lib/dokuwiki``) is read for the defaults and never written:
PHP loads a prepend file that points DokuWiki's ``DOKU_CONF`` / ``DOKU_MAIN_CONF`` at the
instance's folder before DokuWiki's own ``preload.php`` would point them at ``/etc``.

Editing needs a login, as in a real wiki: anyone may read, the group ``user`` may edit, the
administrator (group ``admin``) manages users. ``with DokuWiki() as wiki:`` starts it and stops
the server at the end, whatever happens in between.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from guigraph.errors import ConfigError, EnvError

DOKU_INC = Path("/usr/share/dokuwiki")
DEBIAN_CONF = Path("/etc/dokuwiki")
ADMIN_LOGIN = "admin"
#: Folders DokuWiki needs under its data folder.
DATA_DIRS = (
    "pages", "attic", "meta", "media", "media_attic", "media_meta", "cache", "index", "locks",
    "tmp", "log",
)  # fmt: skip
#: Configuration of an instance: no network of its own (no update check, no DNS), no drafts
#: saved behind the person's back, plain ``doku.php?id=`` URLs.
LOCAL_CONF = """<?php
$conf['title'] = 'Team Wiki';
$conf['savedir'] = '{data}';
$conf['useacl'] = 1;
$conf['authtype'] = 'authplain';
$conf['superuser'] = '@admin';
$conf['manager'] = '@admin';
$conf['userewrite'] = 0;
$conf['updatecheck'] = 0;
$conf['dnslookups'] = 0;
$conf['usedraft'] = 0;
$conf['usewordblock'] = 0;
$conf['securecookie'] = 0;
$conf['breadcrumbs'] = 0;
$conf['youarehere'] = 1;
$conf['jquerycdn'] = 0;
$conf['mailguard'] = 'none';
$conf['autopasswd'] = 0;
$conf['disableactions'] = 'register,resendpwd';
"""
ACL = """# acl.auth.php
*               @ALL          1
*               @user         8
"""
#: Pages every instance starts with: a start page linking to the others.
EXISTING = (
    "projects", "meetings", "travel", "budget", "events", "music", "sports", "kitchen",
    "office", "finance", "marketing", "support",
)  # fmt: skip
PAGES = {
    "start": "====== Team Wiki ======\n\nWelcome to the team wiki. Pages: "
    + ", ".join(f"[[{name}]]" for name in EXISTING)
    + ".\n",
    **{
        name: f"====== {name.title()} ======\n\nWhat the team keeps about {name}.\n"
        for name in EXISTING
    },
}
#: The task file of four everyday workflows on an instance (``envs.web.taskfile``).
TASKS = Path(__file__).with_name("dokuwiki_tasks.toml")


class DokuWiki:
    """One private DokuWiki. ``password`` is the administrator's (``ADMIN_LOGIN``)."""

    def __init__(
        self,
        password: str,
        root: Path | None = None,
        pages: dict[str, str] | None = None,
        php: str = "php",
    ) -> None:
        if not (DOKU_INC / "doku.php").is_file():
            raise ConfigError(
                f"DokuWiki is not installed ({DOKU_INC}/doku.php is missing): apt-get install "
                "dokuwiki php-cli"
            )
        found = shutil.which(php)
        if found is None:
            raise ConfigError(f"no PHP ({php!r} is not on PATH): apt-get install php-cli")
        self.php, self.password = found, password
        self._own_root = root is None
        # Absolute: DokuWiki reads the prepended paths from its own folder, not the caller's.
        self.root = Path(root or tempfile.mkdtemp(prefix="guigraph-dokuwiki-")).resolve()
        self.pages = dict(PAGES if pages is None else pages)
        self.port = 0
        self._server: subprocess.Popen[bytes] | None = None

    # Where things are ----------------------------------------------------------------------
    @property
    def conf(self) -> Path:
        return self.root / "conf"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def users_file(self) -> Path:
        return self.conf / "users.auth.php"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def page_file(self, page: str) -> Path:
        return self.data / "pages" / f"{page.replace(':', '/')}.txt"

    # Life ----------------------------------------------------------------------------------
    def __enter__(self) -> DokuWiki:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self, timeout_s: float = 20.0) -> None:
        """Write a fresh instance and serve it; raises ``EnvError`` if it does not answer."""
        self._write_instance()
        self.port = _free_port()
        prepend = self.root / "prepend.php"
        self._index(prepend)
        self._server = subprocess.Popen(
            [
                self.php, "-d", f"auto_prepend_file={prepend}", "-d", "display_errors=0",
                "-S", f"127.0.0.1:{self.port}", "-t", str(DOKU_INC),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=(self.root / "server.log").open("wb"),
            env={"PHP_CLI_SERVER_WORKERS": "2", "PATH": "/usr/bin:/bin"},
            start_new_session=True,  # the server and its workers: one group, stopped as one
        )  # fmt: skip
        try:
            self._wait_until_up(timeout_s)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the server (and its workers); remove the instance's folder if it made it."""
        server, self._server = self._server, None
        if server is not None:
            _stop_group(server)
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def _index(self, prepend: Path) -> None:
        """Index the pages written directly, so that the wiki's search finds them."""
        done = subprocess.run(
            [self.php, "-d", f"auto_prepend_file={prepend}", str(DOKU_INC / "bin/indexer.php"),
             "-q"],
            capture_output=True, timeout=120, check=False, env={"PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        if done.returncode != 0:
            said = (done.stderr or done.stdout).decode(errors="replace")
            raise EnvError(f"DokuWiki's indexer failed: {_text_of(said)[-300:]}")

    def _wait_until_up(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        last = ""
        while time.monotonic() < deadline:
            if self._server is not None and self._server.poll() is not None:
                log = (self.root / "server.log").read_text(errors="replace").strip()
                raise EnvError(f"php -S stopped at once: {log.splitlines()[-1:] or 'no output'}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/doku.php", timeout=2) as answer:
                    if b"Team Wiki" in answer.read():
                        return
            except (urllib.error.URLError, OSError) as exc:
                last = str(exc)
            time.sleep(0.1)
        raise EnvError(f"DokuWiki did not answer on {self.base_url} ({last})")

    def _write_instance(self) -> None:
        self.conf.mkdir(parents=True, exist_ok=True)
        own = ("local.php", "users.auth.php", "acl.auth.php")  # written below
        for source in DEBIAN_CONF.iterdir():
            default = source.suffix in (".php", ".conf") and source.name not in own
            if default and source.is_file() and not source.is_symlink():
                shutil.copyfile(source, self.conf / source.name)
        for name in DATA_DIRS:
            (self.data / name).mkdir(parents=True, exist_ok=True)
        (self.conf / "local.php").write_text(LOCAL_CONF.replace("{data}", str(self.data)))
        (self.conf / "acl.auth.php").write_text(ACL)
        hashed = _password_hash(self.php, self.password)
        self.users_file.write_text(
            "# users.auth.php\n"
            f"{ADMIN_LOGIN}:{hashed}:Wiki Administrator:admin@example.org:admin,user\n"
        )
        for page, text in self.pages.items():
            path = self.page_file(page)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        conf = f"{self.conf}/"
        (self.root / "prepend.php").write_text(
            "<?php\n"
            f"if (!defined('DOKU_CONF')) define('DOKU_CONF', '{conf}');\n"
            f"if (!defined('DOKU_MAIN_CONF')) define('DOKU_MAIN_CONF', '{conf}');\n"
        )


#: How long stop() waits for the killed workers to leave (a zombie no one reaps stays longer).
GROUP_GONE_S = 2.0


def _stop_group(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's process group (its workers too), SIGKILL if it lingers."""
    for number, wait_s in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, number)
        try:
            server.wait(timeout=wait_s)
            break
        except subprocess.TimeoutExpired:
            continue
    # Workers outlive their parent for a moment: kill the whole group, and wait (briefly) until
    # it is gone, so that a caller who checks right after stop() finds no server left.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGKILL)
    deadline = time.monotonic() + GROUP_GONE_S
    while time.monotonic() < deadline:
        try:
            os.killpg(server.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)


def _password_hash(php: str, password: str) -> str:
    """A bcrypt hash DokuWiki verifies, made by PHP itself (the password on stdin)."""
    done = subprocess.run(
        [php, "-r", "echo password_hash(trim(stream_get_contents(STDIN)), PASSWORD_BCRYPT);"],
        input=password.encode(),
        capture_output=True,
        timeout=30,
        check=False,
    )
    hashed = done.stdout.decode().strip()
    if done.returncode != 0 or not hashed.startswith("$2"):
        raise EnvError(f"php could not hash a password: {done.stderr.decode()[:200]}")
    return hashed


def _free_port() -> int:
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _text_of(output: str) -> str:
    """What a PHP script printed, without the markup of DokuWiki's HTML error page."""
    return " ".join(re.sub(r"<[^>]*>", " ", output).split())
