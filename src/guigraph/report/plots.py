"""The report's figures, drawn with matplotlib (Agg, no display) into PNG bytes.

Three figures, each with one bar per run so ablations compare at a glance: AMS and SR per
category, the failure rate by action type, and the failure rate by position in the episode.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from guigraph.errors import require
from guigraph.report.scores import (
    RunScores,
    categories_of,
    failures_by_position,
    failures_by_type,
    short_name,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Colour-blind-safe (Okabe-Ito), one per run.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


def _pyplot() -> Any:
    matplotlib = require("matplotlib", "report")
    matplotlib.use("Agg", force=True)
    return require("matplotlib.pyplot", "report")


def _png(draw: Callable[[Any], None], width: float, height: float) -> bytes:
    plt = _pyplot()
    figure = plt.figure(figsize=(width, height), dpi=110)
    try:
        draw(figure)
        figure.tight_layout()
        out = io.BytesIO()
        figure.savefig(out, format="png")
        return out.getvalue()
    finally:
        plt.close(figure)


def _bars(
    axes: Axes, labels: list[str], series: list[tuple[str, list[float | None]]], top: float = 105
) -> None:
    """Grouped bars: one group per label, one bar per run; a missing value leaves a gap."""
    count = max(len(series), 1)
    width = 0.8 / count
    for index, (name, values) in enumerate(series):
        xs = [i - 0.4 + width * (index + 0.5) for i in range(len(labels))]
        heights = [v if v is not None else 0.0 for v in values]
        bars = axes.bar(xs, heights, width, label=name, color=COLOURS[index % len(COLOURS)])
        if count <= 2:  # values on the bars while they fit side by side
            texts = [f"{v:.0f}" if v is not None else "" for v in values]
            axes.bar_label(bars, labels=texts, fontsize=7, padding=1)
    axes.set_xticks(range(len(labels)), labels)
    axes.set_ylim(0, top)
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)


def category_bars(scores: list[RunScores]) -> bytes:
    categories = categories_of(scores)
    labels = [short_name(c) for c in categories] + ["Overall"]

    def draw(figure: Any) -> None:
        for position, metric in enumerate(("ams", "sr"), start=1):
            axes = figure.add_subplot(1, 2, position)
            series = [
                (
                    s.name,
                    [getattr(s.cells[c], metric) if c in s.cells else None for c in categories]
                    + [getattr(s.overall, metric)],
                )
                for s in scores
            ]
            _bars(axes, labels, series)
            axes.set_title(f"{metric.upper()} per category (%)")
            axes.tick_params(axis="x", labelrotation=30)
        if len(scores) > 1:
            figure.axes[0].legend(fontsize=8)

    return _png(draw, 11, 3.8)


def _rate_figure(
    scores: list[RunScores],
    table_of: Callable[[RunScores], dict[str, tuple[int, int]]],
    title: str,
    xlabel: str,
    order: Callable[[list[str]], list[str]],
) -> bytes:
    judged = [s for s in scores if s.verdicts]  # live runs have no per-step verdict
    tables = [table_of(s) for s in judged]
    labels = order(list(dict.fromkeys(k for t in tables for k in t)))
    left_out = [s.name for s in scores if not s.verdicts]
    if left_out:
        title += f"\n(no per-step verdicts, not shown: {', '.join(left_out)})"

    def draw(figure: Any) -> None:
        axes = figure.add_subplot(1, 1, 1)
        if not labels:
            axes.text(0.5, 0.5, "no step has a verdict (live run)", ha="center", va="center")
            axes.set_axis_off()
            return
        series = [
            (
                s.name,
                [100 * t[k][0] / t[k][1] if k in t else None for k in labels],
            )
            for s, t in zip(judged, tables, strict=True)
        ]
        highest = max((v for _, values in series for v in values if v is not None), default=0)
        _bars(axes, labels, series, top=min(105.0, max(10.0, highest * 1.25)))
        axes.set_ylabel("steps failed (%)")
        axes.set_xlabel(xlabel)
        axes.set_title(title)
        first = tables[0]
        counts = [f"{k}\n(n={first[k][1]})" if k in first else k for k in labels]
        axes.set_xticks(range(len(labels)), counts, fontsize=8)
        if len(judged) > 1:
            axes.legend(fontsize=8)

    return _png(draw, 11, 3.8)


def failures_by_type_plot(scores: list[RunScores]) -> bytes:
    return _rate_figure(
        scores,
        failures_by_type,
        "Where steps fail: by action type",
        "action type of the step (ground truth; n = steps in the first run)",
        lambda labels: labels,
    )


def failures_by_position_plot(scores: list[RunScores]) -> bytes:
    return _rate_figure(
        scores,
        failures_by_position,
        "Where steps fail: by position in the episode",
        "step number (n = steps in the first run)",
        lambda labels: sorted(labels, key=lambda k: int(k.rstrip("+"))),
    )


def all_plots(scores: list[RunScores]) -> dict[str, bytes]:
    """Figure title -> PNG bytes, in the report's order."""
    return {
        "AMS and SR per category": category_bars(scores),
        "Failures by action type": failures_by_type_plot(scores),
        "Failures by position in the episode": failures_by_position_plot(scores),
    }
