"""The world seam: the registry, evaluation through the interface, conventions, wrappers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs import check_env, conventions, make, names
from guigraph.envs.conventions import ANDROID, WEB, IdScheme
from guigraph.envs.simphone.skins import SKINS
from guigraph.envs.wrappers import RecordEpisodes, ResizeScreenshot, StepLimit
from guigraph.errors import ConfigError
from guigraph.types import Action, ActionType, element_keys, id_less_key_app, text_shape


def test_make_builds_a_registered_world_and_suggests_on_a_typo() -> None:
    assert "simphone" in names()
    env = make("simphone", device="Pixel Tablet")
    assert env.conventions.name == "simphone"
    with pytest.raises(ConfigError, match="did you mean 'simphone'"):
        make("simphon")
    with pytest.raises(ConfigError, match="world 'simphone'"):
        make("simphone", colour="red")


def test_the_world_owns_the_task_and_its_success_check() -> None:
    env = make("simphone")
    task = env.make_task("tool.wifi", 3)
    env.reset(task, 3)
    verdict = env.evaluate()
    assert verdict is not None and verdict.success is False
    free = env.make_task("Turn on the flashlight", 3)
    env.reset(free, 3)
    assert env.evaluate() is None
    with pytest.raises(ValueError, match="unknown SimPhone template"):
        env.make_task("tool.wify", 3)


@pytest.mark.parametrize("skin", sorted(SKINS))
def test_check_env_passes_for_every_skin(skin: str) -> None:
    task = make("simphone").make_task("tool.wifi", 1)
    check_env(lambda: make("simphone", skin=skin), task, seed=1)


def test_skins_change_only_how_elements_are_named() -> None:
    task = make("simphone").make_task("info.weather", 2)
    shown = {}
    for skin in SKINS:
        env = make("simphone", skin=skin)
        obs = env.step(Action.open_app("weather")).observation if env.reset(task, 2) else None
        assert obs is not None and obs.elements
        shown[skin] = obs.elements
    texts = {skin: [e.text for e in els] for skin, els in shown.items()}
    assert texts["standard"] == texts["html-ids"] == texts["no-ids"]
    assert any(":id/" in e.resource_id for e in shown["standard"])
    assert all(":id/" not in e.resource_id and e.resource_id for e in shown["html-ids"] if
               e.resource_id) and any(e.resource_id for e in shown["html-ids"])  # fmt: skip
    assert not any(e.resource_id for e in shown["no-ids"])
    keys = element_keys(shown["no-ids"], "Weather")
    assert len(set(keys)) == len(keys)  # keys tell the elements apart without ids
    assert element_keys(shown["standard"], "Weather")[0] == shown["standard"][0].resource_id
    # An id-less key names its screen's app; a resource id is parsed by the world instead.
    assert {id_less_key_app(k) for k in keys} == {"weather"}
    assert id_less_key_app(shown["standard"][0].resource_id) is None


def test_conventions_parse_ids_by_scheme() -> None:
    assert ANDROID.parse_id("com.x.shop:id/total_price").app == "com.x.shop"
    assert ANDROID.parse_id("com.x.shop:id/total_price").words == {"total", "price"}
    assert WEB.id_scheme is IdScheme.HTML and WEB.parse_id("#price").name == "price"
    assert SKINS["no-ids"].parse_id("anything").name == ""
    assert ANDROID.is_loading(["Loading..."]) and not ANDROID.is_loading(["Oslo"])
    assert conventions.active() is ANDROID
    with conventions.using(WEB):
        assert conventions.active() is WEB
    assert conventions.active() is ANDROID


def test_step_limit_and_resize_wrap_any_world() -> None:
    env = ResizeScreenshot(StepLimit(make("simphone"), max_steps=2), max_side=400)
    task = env.make_task("tool.wifi", 1)
    obs = env.reset(task, 1)
    assert max(obs.image().size) == 400 and obs.image().size == (obs.screen.width,
                                                                  obs.screen.height)  # fmt: skip
    assert not env.step(Action(ActionType.WAIT, seconds=0)).done
    last = env.step(Action(ActionType.WAIT, seconds=0))
    assert last.done and last.info["truncated"]


def test_recording_writes_episodes_the_dataset_reader_takes(tmp_path: Path) -> None:
    env = RecordEpisodes(make("simphone"), tmp_path / "rec")
    task = env.make_task("tool.wifi", 4)
    env.reset(task, 4)
    env.step(Action.open_app("settings"))
    env.step(Action.click(500, 500))
    env.step(Action(ActionType.COMPLETE))
    env.reset(task, 5)  # an episode of no steps is not written
    env.close()
    data = OdysseyDataset(tmp_path / "rec")
    [episode_id] = data.episode_ids("random", "train")
    episode = data.load(episode_id)
    assert episode.instruction == task.instruction
    assert [a.type for a in episode.actions] == [
        ActionType.OPEN_APP, ActionType.CLICK, ActionType.COMPLETE
    ]  # fmt: skip
    assert episode.steps[1].observation.elements  # the screen before the tap, with its tree
    split = json.loads((tmp_path / "rec" / "splits" / "random_split.json").read_text())
    assert split["train"] == [f"{episode_id}.json"]


def test_id_less_keys_name_the_kind_of_value_not_the_value() -> None:
    assert text_shape("5°C") == text_shape("12°C") == "9°"
    assert text_shape("$285.99") == "9$."
    assert text_shape("Denver") == "a" and text_shape("") == ""
    # A sign and a thousands separator are the value's: the next visit may show a
    # temperature below zero or a dearer product in the same element.
    assert text_shape("-3°C") == text_shape("−3°C") == text_shape("21°C")
    assert text_shape("$1,285.99") == text_shape("$285.99")
    # A dash inside a text is the text's own: "5-day forecast" is not a number.
    assert text_shape("5-day forecast") == "9-" != text_shape("5 day forecast")
