"""Table I: one row per run, AMS and SR for each category and overall, as text, Markdown, rich.

The paper's layout: methods (here, runs of an ablation) as rows, each category a pair of
columns (AMS, SR), then the overall pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from guigraph.report.scores import Cell, RunScores, categories_of, short_name

if TYPE_CHECKING:
    from rich.table import Table

DASH = "–"


def value(number: float | None) -> str:
    return DASH if number is None else f"{number:.2f}"


def columns(scores: list[RunScores]) -> list[str]:
    """Group headings: the categories' short names, then Overall."""
    return [short_name(c) for c in categories_of(scores)] + ["Overall"]


def row_cells(run: RunScores, categories: list[str]) -> list[Cell | None]:
    return [run.cells.get(c) for c in categories] + [run.overall]


def rows(scores: list[RunScores]) -> list[list[str]]:
    """Run name, then AMS and SR of each column group, as text."""
    categories = categories_of(scores)
    out = []
    for run in scores:
        cells: list[str] = [run.name]
        for cell in row_cells(run, categories):
            cells += [value(cell.ams if cell else None), value(cell.sr if cell else None)]
        out.append(cells)
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(scores: list[RunScores]) -> str:
    groups = columns(scores)
    head = ["Run"] + [f"{g} {m}" for g in groups for m in ("AMS", "SR")]
    lines = [
        "| " + " | ".join(head) + " |",
        "| --- |" + " ---: |" * (len(head) - 1),
    ]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows(scores)]
    return "\n".join(lines)


def rich_table(scores: list[RunScores]) -> Table:
    """Categories as rows and runs as columns: the terminal is narrow, ablations are few."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title="AMS / SR per category (%)",
        caption="; ".join(f"{escape(s.name)}: {_how(s)}" for s in scores),
    )
    table.add_column("category", no_wrap=True)
    for run in scores:
        table.add_column(f"{escape(run.name)}\nAMS", justify="right")
        table.add_column("\nSR", justify="right")
    categories = categories_of(scores)
    names = columns(scores)
    grid = [row_cells(run, categories) for run in scores]
    for index, name in enumerate(names):
        if name == "Overall":
            table.add_section()
        cells = []
        for row in grid:
            cell = row[index]
            cells += [value(cell.ams if cell else None), value(cell.sr if cell else None)]
        table.add_row(name, *cells, style="bold" if name == "Overall" else None)
    return table


def _how(run: RunScores) -> str:
    overall = "mean of categories" if run.aggregate == "category-mean" else run.aggregate
    return f"{run.steps} steps from {run.source}, overall {overall}"
