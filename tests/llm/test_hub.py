from pathlib import Path

from guigraph.llm import messages as m
from guigraph.llm.config import RoleModels
from guigraph.llm.hub import ModelHub
from guigraph.testing import FakeModelServer, Reply
from tests.llm.conftest import fast_config


def test_roles_get_their_own_model_and_share_ledger_and_cache(tmp_path: Path) -> None:
    with FakeModelServer(lambda body: Reply.of(body["model"]), models=["big", "small"]) as server:
        models = RoleModels(
            default=fast_config(server, model="big"),
            roles={"judge": fast_config(server, model="small")},
        )
        with ModelHub(models, cache_path=tmp_path / "cache.sqlite") as hub:
            assert hub.client("planner").complete([m.user("x")]).text == "big"
            assert hub.client("judge").complete([m.user("x")]).text == "small"
            assert hub.client("judge") is hub.client("judge")
        with ModelHub(models, cache_path=tmp_path / "cache.sqlite") as again:
            assert again.client("judge").complete([m.user("x")]).cached
            usage = again.save_usage(tmp_path / "usage.json")
        assert server.request_count == 2
    assert usage.exists()
    assert set(hub.ledger.by_role()) == {"planner", "judge"}


def test_cache_is_off_unless_asked() -> None:
    with FakeModelServer() as server:
        with ModelHub(RoleModels(default=fast_config(server))) as hub:
            hub.client("planner").complete([m.user("x")])
            hub.client("planner").complete([m.user("x")])
            assert hub.cache is None
        assert server.request_count == 2


def test_role_settings_round_trip_through_dicts() -> None:
    data = {
        "default": {"model": "big", "coords": "qwen3-vl"},
        "roles": {"judge": {"model": "small", "max_tokens": 64}},
    }
    models = RoleModels.from_dict(data)
    assert models.for_role("planner").model == "big"
    judge = models.for_role("judge")
    assert (judge.model, judge.max_tokens, judge.coords) == ("small", 64, "qwen3-vl")
    assert RoleModels.from_dict(models.to_dict()) == models


def test_unknown_setting_is_named() -> None:
    import pytest

    from guigraph.errors import ConfigError
    from guigraph.llm.config import ModelConfig

    with pytest.raises(ConfigError, match="'temprature'"):
        ModelConfig.from_dict({"model": "m", "temprature": 0.2})
    with pytest.raises(ConfigError, match="max_attempts"):
        ModelConfig(max_attempts=0)
