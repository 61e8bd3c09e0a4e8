"""The HTML report: Table I, what each run was, notes, and the plots as embedded PNGs.

One self-contained file (no network, no script needed); every piece of text is escaped.
"""

from __future__ import annotations

import os
from pathlib import Path

from guigraph.htmlsafe import data_uri, text
from guigraph.report.runs import Run
from guigraph.report.scores import RunScores, categories_of
from guigraph.report.table import columns, row_cells, value

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1180px;color:#222;
 padding:0 16px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #ccc;padding:4px 8px}
td.num{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f3f3f3}tr.overall td{font-weight:600}
td.best{background:#e3f1e3}
.muted{color:#666}.note{color:#8a5a00}
figure{margin:12px 0}figure img{max-width:100%;border:1px solid #ddd}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:4px 0 12px}
dt{color:#666}dd{margin:0;overflow-wrap:anywhere}
"""


def render(runs: list[Run], scores: list[RunScores], plots: dict[str, bytes], out: Path) -> str:
    title = "guigraph report: " + ", ".join(run.name for run in runs)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{text(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{text(title)}</h1>",
        "<h2>AMS and SR per category (Table I layout)</h2>",
        table_html(scores),
        '<p class="muted">AMS: steps whose action matches the ground truth (GUIOdyssey official '
        "matcher); SR: episodes with every step right. Best value per column shaded.</p>",
    ]
    for score in scores:
        parts += [f'<p class="note">{text(score.name)}: {text(note)}</p>' for note in score.notes]
    parts.append("<h2>Runs</h2>")
    for run, score in zip(runs, scores, strict=True):
        parts.append(_run_details(run, score, out))
    parts.append("<h2>Plots</h2>")
    for caption, png in plots.items():
        parts.append(
            f'<figure><img alt="{text(caption)}" src="{data_uri(png, "image/png")}">'
            f"<figcaption>{text(caption)}</figcaption></figure>"
        )
    parts.append("</body></html>\n")
    return "\n".join(parts)


def table_html(scores: list[RunScores]) -> str:
    groups = columns(scores)
    categories = categories_of(scores)
    head = "<tr><th rowspan=2>Run</th>" + "".join(f"<th colspan=2>{text(g)}</th>" for g in groups)
    head += "</tr><tr>" + "<th>AMS</th><th>SR</th>" * len(groups) + "</tr>"
    grid = [row_cells(s, categories) for s in scores]
    best: list[float | None] = []
    for column in range(len(groups) * 2):
        values = [_pick(row[column // 2], column % 2) for row in grid]
        numbers = [v for v in values if v is not None]
        best.append(max(numbers) if len(scores) > 1 and numbers else None)
    body = []
    for score, row in zip(scores, grid, strict=True):
        cells = [f"<td>{text(score.name)}</td>"]
        for column in range(len(groups) * 2):
            number = _pick(row[column // 2], column % 2)
            shade = " best" if number is not None and number == best[column] else ""
            cells.append(f'<td class="num{shade}">{value(number)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead>{head}</thead><tbody>{''.join(body)}</tbody></table>"


def _pick(cell: object, metric: int) -> float | None:
    if cell is None:
        return None
    return getattr(cell, "sr" if metric else "ams")


def _usage(usage: object) -> str | None:
    if not isinstance(usage, dict):
        return None
    parts = [f"{usage[k]} {k.replace('_', ' ')}" for k in ("calls", "prompt_tokens",
             "completion_tokens") if isinstance(usage.get(k), int)]  # fmt: skip
    if isinstance(usage.get("cost_usd"), int | float):
        parts.append(f"${usage['cost_usd']:.2f}")
    return ", ".join(parts) or None


def _faults(faults: object) -> str | None:
    """Retried, given-up and unparseable calls of each role that had any."""
    if not isinstance(faults, dict):
        return None
    rows = []
    for role, counts in faults.items():
        if isinstance(counts, dict) and any(counts.values()):
            rows.append(
                f"{role}: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items())
            )
    return "; ".join(rows) or "none"


def _run_details(run: Run, score: RunScores, out: Path) -> str:
    manifest = run.manifest
    model = manifest.get("model")
    model_text = (
        ", ".join(f"{k}={v}" for k, v in model.items()) if isinstance(model, dict) else model
    )
    facts = {
        "folder": str(run.path),
        "suite": run.suite or "?",
        "split": run.config.get("split"),
        "policy": run.config.get("policy"),
        "model": model_text,
        "knowledge base": manifest.get("kb_id"),
        "guigraph": " ".join(
            str(v) for v in (manifest.get("guigraph_version"), manifest.get("git_commit")) if v
        ),
        "started / ended": " → ".join(
            str(v) for v in (manifest.get("started"), manifest.get("ended")) if v
        ),
        "scored": f"{score.steps} steps, {score.overall.episodes} episodes judged by SR, "
        f"from {score.source}",
        "overall": "mean of the categories" if score.aggregate == "category-mean" else "pooled",
        "model usage": _usage(run.summary.get("usage")),
        "model faults": _faults(run.summary.get("faults")),
    }
    rows = "".join(
        f"<dt>{text(k)}</dt><dd>{text(v)}</dd>" for k, v in facts.items() if v not in (None, "")
    )
    viewer = run.path / "viewer" / "index.html"
    if viewer.is_file():
        link = os.path.relpath(viewer, out.resolve().parent)
        rows += f'<dt>episodes</dt><dd><a href="{text(link)}">trajectory viewer</a></dd>'
    else:
        rows += (
            f"<dt>episodes</dt><dd>step by step with: <code>guigraph view {text(run.path)}</code>"
            "</dd>"
        )
    return f"<h3>{text(run.name)}</h3><dl>{rows}</dl>"
