"""DokuWiki, a real web application, in CI: a private instance served by `php -S` that stops
by itself; a person's demonstration recorded through CDP input; the task file's checks read
what the wiki wrote."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from guigraph.envs.web import checks, taskfile
from guigraph.envs.web.dokuwiki import DEBIAN_CONF, TASKS, DokuWiki
from guigraph.envs.web.dokuwiki_person import demonstrate

from .conftest import pids_of_process

PASSWORD = "Wiki-Test-Pass-31"


def _php_pids(root: Path) -> list[int]:
    needle = str(root).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return [p for p in found if _alive(p)]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DokuWiki]:
    system = {p.name: p.stat().st_mtime for p in DEBIAN_CONF.iterdir() if p.is_file()}
    instance = DokuWiki(PASSWORD, root=tmp_path_factory.mktemp("wiki"))
    with instance:
        yield instance
    assert _php_pids(instance.root) == [], "php -S outlived its instance"
    after = {p.name: p.stat().st_mtime for p in DEBIAN_CONF.iterdir() if p.is_file()}
    assert after == system, "the system's own DokuWiki configuration was touched"


def _drawn(wiki: DokuWiki, workflow: str, **values: str) -> taskfile.Drawn:
    given = {"base": wiki.base_url, "wiki": str(wiki.root), "password": PASSWORD, **values}
    return taskfile.load(TASKS).draw(workflow, 0, given)


def test_a_person_creates_a_page_and_the_wiki_file_decides(wiki: DokuWiki, tmp_path: Path) -> None:
    import urllib.request

    with urllib.request.urlopen(f"{wiki.base_url}/doku.php?id=garden&do=edit") as answer:
        page = answer.read().decode()
    assert "wiki__text" not in page, "editing must need a login"
    drawn = _drawn(wiki, "create_page", page="garden", text="Water the tomatoes daily.")
    before = checks.evaluate(drawn.spec.checks, drawn.values, drawn.secrets, None)
    assert before is not None and not before.success
    out = tmp_path / "demos"
    demonstrate(wiki.base_url, "create_page", drawn.values, drawn.task.instruction, PASSWORD,
                out, seed=1)  # fmt: skip
    after = checks.evaluate(drawn.spec.checks, drawn.values, drawn.secrets, None)
    assert after is not None and after.success, after
    episode = json.loads(next((out / "annotations").glob("*.json")).read_text())
    typed = [s["info"] for s in episode["steps"] if s["action"] == "TEXT"]
    assert typed[:2] == ["admin", "{password}\n"] and "garden\n" in typed, typed
    assert "Water the tomatoes daily." in typed
    # The page the person ended on is the wiki's page view, whichever page it shows.
    assert episode["steps"][-1]["activity"] == "/doku.php?id"
    for path in out.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path
    assert pids_of_process(os.getpid()) == []


def test_an_added_user_is_read_from_the_users_file(wiki: DokuWiki) -> None:
    drawn = _drawn(wiki, "add_user", login="olga", name="Olga Park",
                   email="olga.park@example.org", group="editors")  # fmt: skip
    before = checks.evaluate(drawn.spec.checks, drawn.values, {}, None)
    assert before is not None and not before.success
    with wiki.users_file.open("a") as users:
        users.write("olga:$2y$10$x:Olga Park:olga.park@example.org:editors\n")
    verdict = checks.evaluate(drawn.spec.checks, drawn.values, {}, None)
    assert verdict is not None and verdict.success, verdict


def test_a_wiki_in_a_relative_folder_starts_and_is_searchable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bench/workflow_dokuwiki.py --out runs/...`: DokuWiki resolves the prepended paths from
    its own folder, so a relative root failed its indexer with an empty message."""
    import urllib.request

    monkeypatch.chdir(tmp_path)
    with DokuWiki(PASSWORD, root=Path("relative/wiki")) as instance:
        assert instance.root == tmp_path / "relative" / "wiki"
        with urllib.request.urlopen(f"{instance.base_url}/doku.php?id=start", timeout=10) as page:
            assert page.status == 200
    assert _php_pids(instance.root) == []


def test_an_indexer_failure_says_what_dokuwiki_printed() -> None:
    from guigraph.envs.web.dokuwiki import _text_of

    page = "<html><h1>DokuWiki Setup Error</h1>\n<p>The datadir ('pages') is not found</p></html>"
    assert _text_of(page) == "DokuWiki Setup Error The datadir ('pages') is not found"
