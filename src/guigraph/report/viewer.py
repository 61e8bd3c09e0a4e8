"""The trajectory viewer: static HTML, one page per episode and an index per run.

Each step shows its screenshot (a downscaled JPEG embedded in the page, so the folder can be
moved or mailed) with the action drawn over it, then the sub-goal, the proposals with the
verifier's verdicts and feedback, the narrative, the outcome check, the ground truth and verdict
(replay runs), tokens and time. Every piece of model and task text is escaped; the raw records
ride along in a JSON block written with ``htmlsafe.script_json``.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from guigraph.htmlsafe import data_uri, script_json, text
from guigraph.report.overlay import PRED, REJECTED, TRUTH, Canvas, describe
from guigraph.report.runs import Run
from guigraph.report.scores import short_name

#: Width the screenshots are shown at (CSS pixels); the embedded JPEG has 1.5x that.
SHOT_WIDTH = 260
_DEFAULT_SCREEN = (1080, 2400)


@dataclass(frozen=True)
class ViewerPages:
    index: Path
    episodes: int
    missing_screenshots: int


def page_name(episode_id: str) -> str:
    """A file name for an episode that cannot leave the folder or clash with another."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", episode_id)[:80].lstrip(".") or "episode"
    if safe != episode_id:
        safe += "-" + hashlib.sha1(episode_id.encode()).hexdigest()[:8]
    return safe + ".html"


def write_viewer(
    run: Run, out: Path, limit: int | None = None, link_images: bool = False
) -> ViewerPages:
    """Index and episode pages under ``out``. Screenshots are embedded as downscaled JPEGs
    (~30 KB a step; the pages open anywhere), or with ``link_images`` referenced by a path
    relative to the page (small pages that need the screenshots to stay where they are)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "episodes").mkdir(exist_ok=True)
    ids = run.episode_ids()[:limit] if limit else run.episode_ids()
    missing = 0
    for position, episode_id in enumerate(ids):
        neighbours = (
            ids[position - 1] if position > 0 else None,
            ids[position + 1] if position + 1 < len(ids) else None,
        )
        link_from = (out / "episodes").resolve() if link_images else None
        html, absent = episode_page(run, episode_id, neighbours, link_from)
        missing += absent
        (out / "episodes" / page_name(episode_id)).write_text(html, encoding="utf-8")
    index = out / "index.html"
    index.write_text(index_page(run, ids), encoding="utf-8")
    return ViewerPages(index, len(ids), missing)


STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#fff;border-bottom:1px solid #ddd;padding:12px 24px;
 position:sticky;top:0;z-index:2}
main{padding:12px 24px;max-width:1400px}td.nw{white-space:nowrap}
h1{font-size:19px;margin:4px 0}.muted{color:#666}a{color:#0b5cad}
.ok{color:#1a7a30;font-weight:600}.bad{color:#c0231c;font-weight:600}.live{color:#666}
.step{display:flex;gap:18px;background:#fff;border:1px solid #ddd;border-radius:8px;
 padding:12px;margin:12px 0;scroll-margin-top:130px}
.step.wrong{border-left:5px solid #c0231c}.step.right{border-left:5px solid #1a9a3a}
.shot{position:relative;flex:none;background:#eee;border:1px solid #ccc}
.shot img{display:block}.shot svg{position:absolute;left:0;top:0}
.shot .none{position:absolute;top:45%;width:100%;text-align:center;color:#888}
.info{flex:1;min-width:0}.info h2{font-size:16px;margin:0 0 6px}
dl{display:grid;grid-template-columns:max-content auto;gap:3px 12px;margin:0}
dt{color:#666}dd{margin:0;overflow-wrap:anywhere;white-space:pre-wrap}
ol.proposals{margin:0;padding-left:20px}ol.proposals li{margin:2px 0}
code{background:#f1f1f1;padding:0 3px;border-radius:3px}
.legend span{margin-right:14px}.sw{display:inline-block;width:10px;height:10px;border-radius:5px}
table{border-collapse:collapse;background:#fff}th,td{border:1px solid #ddd;padding:4px 8px;
 text-align:left;vertical-align:top}td.num{text-align:right}
nav a{margin-right:14px}
"""


def _head(title: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width">'
        f"<title>{text(title)}</title><style>{STYLE}</style></head><body>"
    )


def _verdict(value: Any, word_ok: str = "correct", word_bad: str = "wrong") -> str:
    if value is True:
        return f'<span class="ok">✔ {word_ok}</span>'
    if value is False:
        return f'<span class="bad">✘ {word_bad}</span>'
    return '<span class="live">not judged</span>'


def _outcome(episode: dict[str, Any]) -> str:
    if episode.get("unfinished"):
        return '<span class="live">unfinished</span>'
    return _verdict(episode.get("success"), "success", "failed")


def _tokens(value: Any, short: bool = False) -> str:
    if isinstance(value, dict) and short:
        return " / ".join(str(value.get(k, 0)) for k in ("prompt", "completion"))
    if isinstance(value, dict):
        return " + ".join(f"{value.get(k, 0)} {k}" for k in ("prompt", "completion") if k in value)
    return "" if value is None else str(value)


def _seconds(value: Any) -> str:
    return f"{value:.2f} s" if isinstance(value, int | float) else ""


def index_page(run: Run, ids: list[str]) -> str:
    rows = []
    for number, episode_id in enumerate(ids, 1):
        episode = run.episode(episode_id)
        steps = run.steps_of(episode_id)
        instruction = str(
            episode.get("instruction") or (steps[0] if steps else {}).get("instruction", "")
        )
        correct = episode.get("correct_steps")
        if correct is None and steps and all(isinstance(s.get("correct"), bool) for s in steps):
            correct = sum(s["correct"] for s in steps)
        wrong = _first_wrong(steps)
        page = f"episodes/{page_name(episode_id)}"
        first = f'<a href="{text(page)}#step-{wrong}">step {wrong}</a>' if wrong else ""
        rows.append(
            f'<tr data-success="{text(episode.get("success"))}"><td class="num">{number}</td>'
            f'<td><a href="{text(page)}">{text(episode_id)}</a></td>'
            f"<td>{text(short_name(str(episode.get('category', ''))))}</td>"
            f"<td>{text(instruction)}</td>"
            f'<td class="num">{text(episode.get("steps", len(steps)))}</td>'
            f'<td class="num">{text("" if correct is None else correct)}</td>'
            f'<td class="nw">{_outcome(episode)}</td>'
            f'<td class="nw">{first}</td>'
            f'<td class="num nw">{_seconds(episode.get("seconds"))}</td>'
            f'<td class="num nw">{text(_tokens(episode.get("tokens"), short=True))}</td></tr>'
        )
    manifest = run.manifest
    facts = " · ".join(
        text(v)
        for v in (
            run.suite,
            run.config.get("split"),
            run.config.get("policy"),
            manifest.get("kb_id"),
        )
        if v
    )
    return (
        _head(f"{run.name}: episodes")
        + f"<header><h1>Run {text(run.name)}: {len(ids)} episodes</h1>"
        f'<div class="muted">{facts}</div></header><main>'
        '<p><label>Show <select id="filter"><option value="all">all episodes</option>'
        '<option value="False">failed only</option><option value="True">successful only</option>'
        "</select></label></p>"
        "<table><thead><tr><th>#</th><th>episode</th><th>category</th><th>instruction</th>"
        "<th>steps</th><th>right</th><th>outcome</th><th>first wrong</th><th>time</th>"
        "<th>tokens<br>(prompt / completion)</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></main>"
        "<script>document.getElementById('filter').addEventListener('change', e => {"
        "for (const row of document.querySelectorAll('tbody tr')) row.hidden ="
        " e.target.value !== 'all' && row.dataset.success !== e.target.value; });</script>"
        "</body></html>\n"
    )


def _first_wrong(steps: list[dict[str, Any]]) -> int | None:
    """1-based number of the first step judged wrong, if any."""
    return next((s["step"] + 1 for s in steps if s.get("correct") is False), None)


def episode_page(
    run: Run,
    episode_id: str,
    neighbours: tuple[str | None, str | None] = (None, None),
    link_from: Path | None = None,
) -> tuple[str, int]:
    """The page of one episode, and how many of its screenshots were missing."""
    episode = run.episode(episode_id)
    steps = run.steps_of(episode_id)
    instruction = episode.get("instruction") or (steps[0].get("instruction") if steps else "")
    nav = ['<a href="../index.html">↑ all episodes</a>']
    if neighbours[0]:
        nav.append(f'<a href="{text(page_name(neighbours[0]))}">← previous</a>')
    if neighbours[1]:
        nav.append(f'<a href="{text(page_name(neighbours[1]))}">next →</a>')
    facts = [
        f"episode <code>{text(episode_id)}</code>",
        text(
            short_name(str(episode.get("category") or (steps[0].get("category") if steps else "")))
        ),
        f"{len(steps)} of {text(episode.get('steps', len(steps)))} steps recorded",
        _outcome(episode),
    ]
    wrong = _first_wrong(steps)
    if wrong:
        facts.append(f'<a href="#step-{wrong}">first wrong step: {wrong}</a>')
    if episode.get("seconds") is not None:
        facts.append(_seconds(episode.get("seconds")))
    if episode.get("tokens") is not None:
        facts.append(text(_tokens(episode.get("tokens"))) + " tokens")
    cards, missing = [], 0
    for step in steps:
        card, absent = step_card(step, episode.get("steps"), link_from)
        cards.append(card)
        missing += absent
    keys = [(PRED, "predicted")]
    if any(isinstance(s.get("gt"), str) for s in steps):
        keys.append((TRUTH, "ground truth (dashed) and its hit box"))
    if any(
        isinstance(p, dict) and p.get("accepted") is False
        for s in steps
        for p in s.get("proposals") or ()
    ):
        keys.append((REJECTED, "rejected proposal"))
    legend = (
        '<div class="legend muted">'
        + "".join(
            f'<span><i class="sw" style="background:{colour}"></i> {label}</span>'
            for colour, label in keys
        )
        + "</div>"
    )
    raw = {"episode": episode, "steps": steps}
    return (
        _head(f"{episode_id}: {instruction}")
        + f"<header><nav>{''.join(nav)}</nav><h1>{text(instruction)}</h1>"
        f'<div class="muted">{" · ".join(facts)}</div>{legend}</header><main>'
        '<p class="muted">Keys: j next step, k previous step.</p>'
        + "".join(cards)
        + '<details id="raw"><summary>raw records (JSON)</summary><pre id="raw-text"></pre>'
        "</details></main>"
        f'<script type="application/json" id="episode-data">{script_json(raw)}</script>'
        "<script>const raw = JSON.parse(document.getElementById('episode-data').textContent);"
        "document.getElementById('raw-text').textContent = JSON.stringify(raw, null, 1);"
        # j / k: next / previous step, from the one at the top of the window
        "const cards = [...document.querySelectorAll('section.step')];"
        "document.addEventListener('keydown', e => { if (e.key !== 'j' && e.key !== 'k') return;"
        " const top = cards.findIndex(c => c.getBoundingClientRect().top > 140);"
        " const at = top < 0 ? cards.length : top;"
        " const go = e.key === 'j' ? cards[at] : cards[Math.max(0, at - 2)];"
        " if (go) location.hash = go.id; });</script>"
        "</body></html>\n"
    ), missing


def step_card(
    step: dict[str, Any], length: Any = None, link_from: Path | None = None
) -> tuple[str, int]:
    shot, missing = _screenshot(step, link_from)
    number = step["step"] + 1
    correct = step.get("correct")
    klass = " right" if correct is True else " wrong" if correct is False else ""
    fields: list[tuple[str, str]] = []
    if step.get("subgoal"):
        fields.append(("sub-goal", text(step["subgoal"])))
    action = step.get("action")
    fields.append(
        ("action", f"{text(describe(action))} <code>{text(step.get('pred') or '')}</code>")
    )
    if step.get("gt") is not None:
        fields.append(("ground truth", f"<code>{text(step['gt'])}</code> {_verdict(correct)}"))
    proposals = step.get("proposals")
    if isinstance(proposals, list) and proposals:
        items = []
        for item in proposals:
            item = item if isinstance(item, dict) else {"action": item}
            verdict = _verdict(item.get("accepted"), "accepted", "rejected")
            source = (
                f'<span class="muted">[{text(item["source"])}]</span> '
                if item.get("source")
                else ""
            )
            feedback = f" — {text(item['feedback'])}" if item.get("feedback") else ""
            reason = (
                f'<div class="muted">reason: {text(item["reason"])}</div>'
                if item.get("reason")
                else ""
            )
            items.append(
                f"<li>{source}{text(describe(item.get('action')))} {verdict}{feedback}{reason}</li>"
            )
        fields.append(("proposals", f'<ol class="proposals">{"".join(items)}</ol>'))
    if step.get("narrative"):
        fields.append(("narrative", text(_plain(step["narrative"]))))
    outcome = " — ".join(
        _plain(step[k]) for k in ("outcome", "outcome_note") if step.get(k) not in (None, "", {})
    )
    if outcome:
        fields.append(("outcome", text(outcome)))
    usage = [_tokens(step.get("tokens")) + " tokens" if step.get("tokens") else ""]
    usage += [f"{step['calls']} calls" if step.get("calls") is not None else ""]
    usage += [_seconds(step.get("seconds"))]
    if any(usage):
        fields.append(("cost", text(" · ".join(u for u in usage if u))))
    body = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in fields)
    title = f"Step {number} of {text(step.get('step_length') or length or '?')}"
    verdict = f" {_verdict(correct)}" if correct is not None else ""
    return (
        f'<section class="step{klass}" id="step-{number}">{shot}<div class="info">'
        f"<h2>{title}{verdict}</h2><dl>{body}</dl></div></section>"
    ), missing


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return "\n".join(f"{k}: {v}" for k, v in value.items())
    return str(value)


def _screenshot(step: dict[str, Any], link_from: Path | None = None) -> tuple[str, int]:
    """The screenshot with the actions drawn, and 1 if the file was missing or unreadable."""
    image = _load_image(step.get("screenshot"), header_only=link_from is not None)
    if image is not None:
        source_w, source_h = image.size
    else:
        screen = step.get("screen")
        ok = (
            isinstance(screen, list | tuple)
            and len(screen) == 2
            and all(isinstance(v, int | float) and v > 0 for v in screen)
        )
        source_w, source_h = (screen[0], screen[1]) if ok else _DEFAULT_SCREEN  # type: ignore[index]
    width = SHOT_WIDTH
    # A tablet, a phone or a strange "screen" field: the box stays between landscape and tall.
    height = round(width * min(4.0, max(0.3, source_h / source_w)))
    canvas = Canvas(width, height)
    for proposal in step.get("proposals") or ():
        if isinstance(proposal, dict) and proposal.get("accepted") is False:
            canvas.action(proposal.get("action"), REJECTED)
    if isinstance(step.get("gt"), str):
        canvas.box(step.get("sam2_bbox"), TRUTH)
        canvas.action(_truth_action(step["gt"]), TRUTH, dashed=True)
    canvas.action(step.get("action") or _truth_action(step.get("pred")), PRED)
    if image is None:
        inner = '<div class="none">no screenshot</div>'
    elif link_from is not None:
        source = Path(os.path.relpath(Path(step["screenshot"]).resolve(), link_from)).as_posix()
        inner = (
            f'<img alt="screenshot of step {step["step"] + 1}" width="{width}" '
            f'height="{height}" src="{text(quote(source))}">'
        )
    else:
        image.thumbnail((round(width * 1.5), round(height * 1.5)))
        out = io.BytesIO()
        image.convert("RGB").save(out, format="JPEG", quality=75)
        inner = (
            f'<img alt="screenshot of step {step["step"] + 1}" width="{width}" '
            f'height="{height}" src="{data_uri(out.getvalue(), "image/jpeg")}">'
        )
    style = f"width:{width}px;height:{height}px"
    return f'<div class="shot" style="{style}">{inner}{canvas.svg()}</div>', int(image is None)


def _load_image(path: Any, header_only: bool = False) -> Any:
    """The image (or, ``header_only``, just its size read from the header), None if unusable."""
    if not isinstance(path, str) or not path:
        return None
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            if header_only:
                return image  # .size stays readable after close
            image.load()
            return image.copy()
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None


def _truth_action(command: Any) -> dict[str, Any] | None:
    """A command string as an action dict, or None when it does not parse."""
    from guigraph.data.commands import command_to_action
    from guigraph.errors import GuigraphError

    if not isinstance(command, str):
        return None
    try:
        return command_to_action(command).to_dict()
    except (GuigraphError, ValueError):
        return None
