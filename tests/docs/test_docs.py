"""The pages a user reads: README stays short, its links resolve, no development history."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 350

# Markdown links `[text](target)` and HTML `src="target"`; external and in-page ones are skipped.
LINK = re.compile(r"\]\(([^)\s]+)\)|\bsrc=\"([^\"]+)\"")
# How the project was built is git's and CHANGELOG.md's, never the user's pages'.
PROCESS_WORDS = re.compile(
    r"\bsessions? \d+|\bwave\b|\bat commit\b|\bpreviously\b|\bused to\b",
    re.IGNORECASE,
)


def user_pages() -> list[Path]:
    return [ROOT / "BENCHMARKS.md", *written_pages()]


def written_pages() -> list[Path]:
    """The pages people write (BENCHMARKS.md is rendered from the benches' own results)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def local_links(page: Path) -> list[tuple[int, str]]:
    """(line number, target) of every link to a file of the repository on the page."""
    found = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        for match in LINK.finditer(line):
            target = match.group(1) or match.group(2)
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            found.append((number, target.split("#", 1)[0]))
    return found


def test_readme_stays_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines (at most {README_MAX_LINES}): move detail to docs/<topic>.md"
    )


def test_readme_links_the_docs_and_the_changelog() -> None:
    targets = {target for _, target in local_links(ROOT / "README.md")}
    assert "CHANGELOG.md" in targets
    assert "BENCHMARKS.md" in targets
    assert any(target.startswith("docs/") for target in targets)


@pytest.mark.parametrize("page", user_pages(), ids=lambda page: page.name)
def test_links_resolve(page: Path) -> None:
    broken = [
        f"{page.relative_to(ROOT)}:{number}: {target}"
        for number, target in local_links(page)
        if not (page.parent / target).exists()
    ]
    assert not broken, "links to missing files:\n" + "\n".join(broken)


@pytest.mark.parametrize("page", written_pages(), ids=lambda page: page.name)
def test_no_development_history(page: Path) -> None:
    lines = page.read_text(encoding="utf-8").splitlines()
    found = [
        f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
        for number, line in enumerate(lines, start=1)
        if PROCESS_WORDS.search(line)
    ]
    assert not found, "history belongs in git and CHANGELOG.md:\n" + "\n".join(found)


def test_link_check_catches_a_missing_page(tmp_path: Path) -> None:
    page = tmp_path / "README.md"
    page.write_text("See [the graph](docs/graph.md) and [PyPI](https://pypi.org).\n")
    assert local_links(page) == [(1, "docs/graph.md")]
    assert not (page.parent / "docs/graph.md").exists()
