"""The demo's run folder: record SimPhone logs, build the KB, run every case, resumably.

Layout of ``DIR``: ``demo.json`` (how the logs were made), ``logs/`` (GUIOdyssey layout, the
templates that recombine others' sub-workflows held out), ``kb/`` (built from the train split
with the same code as ``guigraph build``), ``results.jsonl`` (one line per finished episode)
and ``replay-graph.jsonl`` / ``replay-trace.jsonl`` (the logs' test split replayed
teacher-forced, GUIOdyssey's offline protocol, scored for AMS). A killed demo resumes:
finished logs and KB episodes are kept and finished cases and replayed episodes are not run
again. Only a recording cut short is redone from scratch (it takes seconds).
``demo.json`` also holds a hash of guigraph's source: when the code changed, the folder starts
over, so a table never mixes results of two versions of the agents.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from guigraph.errors import ConfigError
from guigraph.eval.suite import MEMORIES, EvalCase, Sizes, plan_cases, run_case, summarize
from guigraph.graph.settings import DEFAULT_ENCODER

DEMO_SCHEMA_VERSION = 1
RESULTS_FILE = "results.jsonl"
REPLAY_FILE = "replay-{memory}.jsonl"
#: Every evaluation's results kept in a demo folder: made by other code, they are deleted.
RESULT_FILES = (RESULTS_FILE, REPLAY_FILE.format(memory="*"), "generalize-*.jsonl")
#: Held by the running demo: a second demo in the same folder would delete its files.
DEMO_LOCK = "demo.lock"


@dataclass(frozen=True)
class DemoConfig:
    episodes: int = 300
    seed: int = 11
    noise: float = 0.1
    device: str = "Pixel 7 Pro"
    other_device: str = "Pixel Tablet"
    sizes: Sizes = field(default_factory=Sizes)
    max_steps: int = 40
    #: Evaluate only these templates (all when empty); the logs are the same either way.
    templates: tuple[str, ...] = ()
    #: How SimPhone reports elements, in the logs and live (``envs.simphone.skins``).
    skin: str = "standard"
    #: The KB's text encoder (``embed.encoder_from_spec``); the logs do not depend on it.
    encoder: str = DEFAULT_ENCODER

    def logs_settings(self) -> dict[str, Any]:
        """What the logs and the KB depend on; the evaluation sizes may change freely."""
        return {
            "episodes": self.episodes,
            "seed": self.seed,
            "noise": self.noise,
            "device": self.device,
            "holdout_templates": held_out_templates(),
            # Only a non-default skin is named, so folders made before skins existed still fit.
            **({"skin": self.skin} if self.skin != "standard" else {}),
            **({"encoder": self.encoder} if self.encoder != DEFAULT_ENCODER else {}),
        }


class Reporter(Protocol):
    """How the demo shows progress: one stage at a time, advanced once per item."""

    def stage(self, description: str, total: int, done: int = 0) -> Callable[[], None]: ...

    def note(self, text: str) -> None: ...


class SilentReporter:
    def stage(self, description: str, total: int, done: int = 0) -> Callable[[], None]:
        return lambda: None

    def note(self, text: str) -> None:
        pass


@dataclass
class DemoReport:
    summary: dict[str, dict[str, dict[str, Any]]]
    setup: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {**self.summary, "setup": self.setup}


def held_out_templates() -> list[str]:
    """Templates made of other templates' sub-workflows: never recorded, only evaluated."""
    from guigraph.envs.simphone.tasks import TEMPLATES

    return [t.template_id for t in TEMPLATES.values() if t.recombines]


def run_demo(
    out: Path, config: DemoConfig, reporter: Reporter | None = None, fresh: bool = False
) -> DemoReport:
    """Run (or resume) the demo in ``out``; ``fresh`` empties the folder first."""
    from guigraph.locks import folder_lock

    out = Path(out)
    seen, held = evaluated_templates(config.templates)
    with folder_lock(out, DEMO_LOCK, "another demo is running in this folder"):
        if fresh:
            _empty_folder(out)
        return _run_demo(out, config, reporter or SilentReporter(), seen, held)


def _empty_folder(out: Path) -> None:
    """Everything but the lock file, which the running demo holds."""
    for child in out.iterdir():
        if child.name == DEMO_LOCK:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _run_demo(
    out: Path, config: DemoConfig, reporter: Reporter, seen: list[str], held: list[str]
) -> DemoReport:
    started = time.perf_counter()
    used_seeds, kb_stats = prepare_kb(out, config, reporter)
    cases = plan_cases(
        seen, held, config.sizes, used_seeds, config.device, config.other_device,
        skin=config.skin,
    )  # fmt: skip
    rows = _run_cases(out, cases, config, reporter)
    test_split = _test_split_scores(out, reporter)
    planned = {case.key for case in cases}
    setup = {
        "logs_episodes": config.episodes,
        "logs_seed": config.seed,
        "noise": config.noise,
        "held_out_templates": held,
        "seen_templates": seen,
        "kb": kb_stats,
        "encoder": config.encoder,
        "instances_per_template": asdict(config.sizes),
        "devices": {"seen": config.device, "other_device": config.other_device},
        "max_steps": config.max_steps,
        "test_split": test_split,
        "seconds": round(time.perf_counter() - started, 1),
    }
    return DemoReport(summarize(r for r in rows if r["key"] in planned), setup)


def prepare_kb(
    out: Path, config: DemoConfig, reporter: Reporter
) -> tuple[set[int], dict[str, Any]]:
    """Claim ``out`` for ``config``, record its logs and build its KB (each kept when there);
    returns the seeds the logs used and the KB's size. Other evaluations on the demo's KB
    (``guigraph eval generalize``) call this too, so a demo folder serves them all."""
    _claim_folder(out, config, reporter)
    used_seeds = _ensure_logs(out / "logs", config, reporter)
    return used_seeds, _ensure_kb(out, config.encoder, reporter)


def evaluated_templates(only: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """(seen, held-out) template ids to evaluate, all of them unless ``only`` names some."""
    from guigraph.envs.simphone.tasks import TEMPLATES

    unknown = sorted(set(only) - set(TEMPLATES))
    if unknown:
        raise ConfigError(f"--templates: unknown SimPhone templates {unknown}")
    held = held_out_templates()
    seen = [t for t in TEMPLATES if t not in held]
    if only:
        seen = [t for t in seen if t in only]
        held = [t for t in held if t in only]
    return seen, held


def _claim_folder(out: Path, config: DemoConfig, reporter: Reporter) -> None:
    """Refuse to mix runs (a folder's logs were made with one set of settings), and start
    over when the code changed since the folder was made, so no stale result is reused."""
    marker = out / "demo.json"
    wanted = {"schema_version": DEMO_SCHEMA_VERSION, **config.logs_settings()}
    code = code_fingerprint()
    if marker.is_file():
        found = json.loads(marker.read_text())
        made_by = found.pop("code", None)
        if found != wanted:
            # Both ways: a setting only the folder names (its encoder) differs too.
            different = sorted(k for k in {*wanted, *found} if found.get(k) != wanted.get(k))
            settings = ", ".join(
                f"{k}={found.get(k)!r} where this run asks {wanted.get(k)!r}" for k in different
            )
            raise ConfigError(
                f"{marker}: this folder holds a demo made with other settings ({settings}); "
                "use another --out or delete the folder"
            )
        if made_by == code:
            return
        reporter.note(f"{out}: the guigraph code changed since this run; starting over")
        for part in ("logs", "kb"):
            shutil.rmtree(out / part, ignore_errors=True)
        for pattern in RESULT_FILES:
            for stale in out.glob(pattern):
                stale.unlink()
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({**wanted, "code": code}, indent=1) + "\n")


def code_fingerprint() -> str:
    """A hash of guigraph's source: results made by other code are not reused."""
    import hashlib

    import guigraph

    root = Path(guigraph.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _ensure_logs(logs: Path, config: DemoConfig, reporter: Reporter) -> set[int]:
    """Record the logs unless a finished recording is there; returns the seeds they used."""
    from guigraph.envs.simphone.recorder import record

    manifest = logs / "simphone.json"
    if manifest.is_file():
        reporter.note(f"logs: reusing {logs}")
    else:
        if logs.exists():  # a recording cut short: the manifest is written last
            shutil.rmtree(logs)
        advance = reporter.stage("recording logs", config.episodes)
        summary = record(
            logs,
            config.episodes,
            config.seed,
            device=config.device,
            noise=config.noise,
            holdout=held_out_templates(),
            on_episode=lambda _: advance(),
            skin=config.skin,
        )
        if summary.failures:
            reporter.note(f"warning: the expert failed on {', '.join(summary.failures)}")
    data = json.loads(manifest.read_text())
    return {int(episode["seed"]) for episode in data["episodes"]}


def _ensure_kb(out: Path, encoder: str, reporter: Reporter) -> dict[str, Any]:
    from guigraph.graph.from_logs import build_from_logs

    advance: list[Callable[[], None]] = []

    def on_total(total: int) -> None:
        advance.append(reporter.stage("building the knowledge base", total))

    summary, stats = build_from_logs(
        out / "logs", out / "kb", encoder=encoder, on_total=on_total,
        on_episode=lambda _: advance[0](),
    )  # fmt: skip
    for episode_id, reason in summary.skipped:
        reporter.note(f"warning: skipped episode {episode_id}: {reason}")
    return {k: stats[k] for k in ("nodes", "edges", "traces") if k in stats}


def load_results(path: Path) -> list[dict[str, Any]]:
    """Finished rows; a last line cut short by a kill is dropped from the file."""
    from guigraph.errors import DatasetError
    from guigraph.eval.steps import decode_line

    if not path.is_file():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        data = data[: data.rfind(b"\n") + 1]
        path.write_bytes(data)
    rows = []
    for number, raw in enumerate(data.splitlines(), start=1):
        text = decode_line(raw, f"{path}:{number}")
        if not text.strip():
            continue
        try:
            rows.append(json.loads(text))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{number}", None, "a JSON object", exc.msg) from None
    return rows


def _run_cases(
    out: Path, cases: list[EvalCase], config: DemoConfig, reporter: Reporter
) -> list[dict[str, Any]]:
    from guigraph.compiler.index import GraphView
    from guigraph.graph.kb import KnowledgeBase

    path = out / RESULTS_FILE
    rows = load_results(path)
    done = {row["key"] for row in rows}
    reused = sum(case.key in done for case in cases)
    if reused:
        reporter.note(f"resuming: {reused} finished episodes kept from {path} (--fresh reruns)")
    groups: dict[tuple[str, str], list[EvalCase]] = {}
    for case in cases:
        groups.setdefault((case.condition, case.memory), []).append(case)
    with KnowledgeBase.open(out / "kb") as kb, path.open("a") as sink:
        view = GraphView.load(kb)
        for (condition, memory), group in groups.items():
            finished = sum(case.key in done for case in group)
            advance = reporter.stage(f"{condition} · {memory}", len(group), finished)
            for case in group:
                if case.key in done:
                    continue
                row = run_case(case, kb, view, config.max_steps)
                sink.write(json.dumps(row) + "\n")
                sink.flush()  # one line per finished episode, so a kill loses at most one
                rows.append(row)
                done.add(case.key)
                advance()
    return rows


def _test_split_scores(out: Path, reporter: Reporter) -> dict[str, dict[str, Any]]:
    """AMS and SR of each memory replayed teacher-forced over the logs' test split, as
    ``guigraph replay`` and ``guigraph score`` compute them; resumed like the live cases."""
    from contextlib import ExitStack

    from guigraph.agents.factory import team_factory
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.eval.metrics import summarize as score
    from guigraph.eval.replay import load_finished, replay_to_file
    from guigraph.eval.steps import read_steps, score_records
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.types import ODYSSEY_ACTIONS

    dataset = OdysseyDataset(out / "logs")
    ids = dataset.episode_ids(split="random", part="test")
    scores: dict[str, dict[str, Any]] = {}
    with KnowledgeBase.open(out / "kb") as kb, ExitStack() as resources:
        for memory in MEMORIES:
            path = out / REPLAY_FILE.format(memory=memory)
            make_team, _ = team_factory(
                "graph", kb, resources, memory=memory, action_space=ODYSSEY_ACTIONS
            )
            done = len(load_finished(path) & set(ids))
            advance = reporter.stage(f"test split · {memory}", len(ids), done)
            replay_to_file(dataset, ids, make_team, path, kb=kb, on_episode=_ignore_id(advance))
            result = score(score_records(read_steps(path), source=str(path)))
            scores[memory] = {
                "ams": result.ams, "sr": result.sr, "steps": result.steps,
                "episodes": result.episodes,
            }  # fmt: skip
    return scores


def _ignore_id(advance: Callable[[], None]) -> Callable[[str], None]:
    return lambda _: advance()
