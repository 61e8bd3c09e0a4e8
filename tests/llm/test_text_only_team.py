"""The model team against a text-only server (like llama.cpp serving a small model): no image
is sent, the screen goes as text, structured output in the form the server takes, per-role
settings from a model-config file and the command line, usage on disk."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.errors import ConfigError
from guigraph.llm.model_file import ModelFlags, role_models
from guigraph.testing import FakeModelServer
from guigraph.testing.server import has_image
from tests.agents.oracle import Oracle

runner = CliRunner()
TEMPLATE, SEED = "tool.wifi", 5


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "GUIGRAPH_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _role(body: dict) -> str:
    content = body["messages"][-1]["content"]
    text = content if isinstance(content, str) else ""
    return text.split(".", 1)[0].removeprefix("Role: ") if text.startswith("Role: ") else ""


def test_run_text_only_against_a_server_that_refuses_images(tmp_path: Path) -> None:
    config = tmp_path / "models.toml"
    config.write_text(
        '[default]\nmodel = "oracle"\ntimeout_s = 20\nmax_tokens = 300\n'
        "[roles.narrator]\nmax_tokens = 48\n"
    )
    out = tmp_path / "run"
    oracle = Oracle([(TEMPLATE, SEED)])
    server = FakeModelServer(
        oracle, models=("oracle",), vision=False, response_formats=("json_object",)
    )
    with server:
        args = ["run", "--task", TEMPLATE, "--seed", str(SEED), "--policy", "model"]
        args += ["--base-url", server.base_url, "--model-config", str(config), "--text-only"]
        args += ["--retries", "1", "--model-set", "decider.timeout_s=30", "--out", str(out)]
        result = runner.invoke(app, args, env={"OPENAI_API_KEY": "sk-text-only-secret"})
        requests = list(server.requests)
    assert result.exit_code == 0, result.output
    assert "success: yes (the world's checker)" in result.output
    assert requests and not any(has_image(body) for body in requests)
    kinds = [(b.get("response_format") or {}).get("type") for b in requests]
    # json_schema is tried once, rejected, and json_object used from then on.
    assert kinds.count("json_schema") == 1 and "json_object" in kinds
    narrator = [b["max_tokens"] for b in requests if _role(b) == "narrator"]
    others = {b["max_tokens"] for b in requests if _role(b) not in ("narrator", "")}
    assert narrator and set(narrator) == {48} and others == {300}
    usage = json.loads((out / "usage.json").read_text())
    assert usage["run"]["calls"] == len(requests) - 1  # the rejected form is not a call
    assert usage["run"]["images"] == 0 and usage["run"]["parse_failures"] == 0
    assert "sk-text-only-secret" not in (out / "usage.json").read_text()


def test_model_config_files_and_flags_merge_per_role(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(
        json.dumps(
            {
                "default": {"model": "m", "timeout_s": 90, "coords": "pixel"},
                "roles": {"decider": {"max_tokens": 200}, "narrator": {"timeout_s": 5}},
            }
        )
    )
    flags = ModelFlags(
        config_file=path, text_only=True, timeout_s=30, retries=0,
        sets=("narrator.timeout_s=7", "structured=json_object"),
    )  # fmt: skip
    models = role_models(flags)
    decider, narrator, planner = (models.for_role(r) for r in ("decider", "narrator", "planner"))
    assert (decider.max_tokens, decider.timeout_s, decider.coords) == (200, 30, "pixel")
    assert narrator.timeout_s == 7 and planner.timeout_s == 30
    for config in (decider, narrator, planner):
        assert not config.vision and config.max_attempts == 1
        assert config.structured == "json_object"


@pytest.mark.parametrize(
    ("text", "suffix", "message"),
    [
        ("[default]\nmodel = 3\n", ".toml", "wrong type"),
        ("[default\n", ".toml", "not valid TOML"),
        ("{}", ".json", None),
        ('{"default": {"api_key": "sk-x"}}', ".json", "keys come from the environment"),
        ('{"models": {}}', ".json", "unknown key"),
        ('{"default": {"colour": 1}}', ".json", "unknown field"),
    ],
)
def test_bad_model_config_files_are_named(
    tmp_path: Path, text: str, suffix: str, message: str | None
) -> None:
    path = tmp_path / f"m{suffix}"
    path.write_text(text)
    if message is None:
        role_models(ModelFlags(config_file=path))
        return
    with pytest.raises(ConfigError, match=message):
        role_models(ModelFlags(config_file=path))


def test_run_refuses_an_unknown_role_in_one_line(tmp_path: Path) -> None:
    with FakeModelServer(models=("oracle",)) as server:
        args = ["run", "--task", TEMPLATE, "--policy", "model", "--model", "oracle"]
        args += ["--base-url", server.base_url, "--model-set", "decidr.max_tokens=9"]
        result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "unknown role(s) ['decidr']" in result.output and "Traceback" not in result.output


def test_a_screen_without_ui_tree_reaches_a_text_only_model_as_ocr_text() -> None:
    from guigraph.agents.model_roles import Briefing, RoleClient
    from guigraph.agents.observer import RuleObserver
    from guigraph.geometry import ScreenSize
    from guigraph.llm.client import ChatClient
    from guigraph.types import Observation
    from tests.llm.conftest import fast_config, own_limit
    from tests.llm.test_ocr import screenshot

    observation = Observation(ScreenSize(540, 1200), screenshot=screenshot(), app="Settings")
    state = RuleObserver().observe(observation, None)
    with FakeModelServer(vision=False) as server:
        client = ChatClient(fast_config(server, vision=False, coords="pixel"), limit=own_limit())
        role = RoleClient(client, "decider", Briefing(), screenshots=True)
        text = role.elements(state)
        role.ask(text, role.images(state))
        sent = server.requests[0]
    assert role.images(state) == [] and not has_image(sent)
    assert "OCR" in text and "'Settings' at (" in text and "'Wi-Fi network' at (" in text
    # Centres in the model's space (pixels here): "Wi-Fi network" was drawn near y = 720.
    line = next(line for line in text.splitlines() if "Wi-Fi" in line)
    y = int(line.rsplit(", ", 1)[1].rstrip(")"))
    assert 680 < y < 780


def test_replay_text_only_sends_no_image_and_keeps_every_step(
    simphone_logs: Path, simphone_kb: Path, tmp_path: Path
) -> None:
    from guigraph.data.odyssey import OdysseyDataset
    from tests.eval.replay_oracle import replay_oracle

    dataset = OdysseyDataset(simphone_logs)
    first = dataset.episode_ids("random", "test")[0]
    oracle = replay_oracle(dataset, [first])
    out = tmp_path / "STEPS.jsonl"
    with FakeModelServer(oracle, models=("oracle",), vision=False) as server:
        args = ["replay", str(simphone_logs), "--kb", str(simphone_kb), "--out", str(out)]
        args += ["--policy", "model", "--limit", "1", "--text-only", "--model", "oracle"]
        args += ["--base-url", server.base_url, "--max-tokens", "200", "--structured", "none"]
        result = runner.invoke(app, args)
        requests = list(server.requests)
    assert result.exit_code == 0, result.output
    assert requests and not any(has_image(body) for body in requests)
    assert not any("response_format" in body for body in requests)
    assert {body["max_tokens"] for body in requests} == {200}
    assert len(out.read_text().splitlines()) == len(dataset.load(first).steps)
    usage = json.loads(out.with_name("STEPS.usage.json").read_text())
    assert usage["run"]["calls"] == len(requests) and usage["run"]["images"] == 0
