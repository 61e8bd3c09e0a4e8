import asyncio
import json
import logging
from pathlib import Path

import pytest

from guigraph.errors import ModelCallError
from guigraph.llm import messages as m
from guigraph.llm.cache import ResponseCache
from guigraph.llm.client import ChatClient
from guigraph.llm.config import ModelConfig, RoleModels
from guigraph.llm.usage import UsageLedger
from guigraph.testing import FakeModelServer, Reply
from tests.llm.conftest import SECRET, fast_config, own_limit


def test_api_key_never_reaches_logs_caches_or_saved_files(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the SDK's and httpx's included
    ledger = UsageLedger()
    script = [Reply.error(429), Reply.drop(), Reply.of("fine"), Reply.error(401, "bad key")]
    errors = []
    with FakeModelServer(script, default=Reply.error(500)) as server:
        config = fast_config(server, max_attempts=3)
        with ResponseCache(tmp_path / "cache.sqlite") as cache:
            client = ChatClient(config, ledger=ledger, cache=cache, limit=own_limit())
            client.complete([m.user("first")])
            for prompt in ("second", "third"):
                try:
                    asyncio.run(client.acomplete([m.user(prompt)]))
                except ModelCallError as exc:
                    errors.append(str(exc) + repr(exc))
        assert server.authorizations[0] == f"Bearer {SECRET}"  # it was really sent
    assert len(errors) == 2
    ledger.save(tmp_path / "run" / "usage.json")
    (tmp_path / "run" / "models.json").write_text(json.dumps(RoleModels(default=config).to_dict()))
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    said = caplog.text + "".join(capsys.readouterr()) + "".join(errors) + repr(client)
    said += repr(config)
    assert "retrying" in caplog.text  # the logs did record the failures
    assert SECRET not in said
    assert SECRET.encode() not in written


def test_config_reads_environment_fallbacks_and_never_saves_the_key() -> None:
    env = {"OPENAI_BASE_URL": "http://localhost:8000/v1/", "OPENAI_API_KEY": SECRET}
    resolved = ModelConfig(model="qwen").resolved(env)
    assert resolved.base_url == "http://localhost:8000/v1"
    assert resolved.api_key == SECRET
    assert "api_key" not in resolved.to_dict()
    assert ModelConfig.from_dict(resolved.to_dict()).api_key == ""
    explicit = ModelConfig(model="q", base_url="http://h/v1", api_key="k").resolved(env)
    assert (explicit.base_url, explicit.api_key) == ("http://h/v1", "k")
