"""Every screen type and pop-up renders to a readable screenshot with a consistent UI tree."""

from __future__ import annotations

import pytest
from PIL import ImageStat

from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.showcase import open_screen
from guigraph.envs.simphone.tasks import make_task
from guigraph.envs.simphone.widgets import APPS, POPUPS, SCREENS

IDENTITIES = sorted(SCREENS) + sorted(POPUPS)
TASK = make_task("info.note", 0)


def test_the_phone_is_big_enough() -> None:
    assert len(APPS) >= 10
    assert len(SCREENS) >= 60
    assert {name.split(".")[0] for name in SCREENS} >= set(APPS)


@pytest.mark.parametrize("identity", IDENTITIES)
@pytest.mark.parametrize("device", ["Pixel 7 Pro", "Pixel Tablet"])
def test_every_screen_renders(identity: str, device: str) -> None:
    env = SimPhone(device, version=2 if device == "Pixel Tablet" else 1, popup_rate=0.0)
    env.reset(TASK, 3)
    open_screen(env, identity)
    assert env.screen_identity() == identity
    obs = env._observe()
    image = obs.image()
    assert image.size == (env.device.width, env.device.height)
    # Not blank: the picture has real contrast, as text on a background does.
    low, high = zip(*ImageStat.Stat(image.convert("L")).extrema, strict=True)
    assert max(high) - min(low) > 100
    elements = obs.elements or ()
    assert sum(1 for e in elements if e.text) >= 2, "a screen shows at least two texts"
    for element in elements:
        box = element.bbox
        assert 0 <= box.x1 <= box.x2 <= 1000 and 0 <= box.y1 <= box.y2 <= 1000
    if identity not in ("system.home",):
        assert any(e.clickable for e in elements)


def test_a_popup_hides_the_screen_beneath() -> None:
    env = SimPhone(popup_rate=0.0)
    env.reset(TASK, 3)
    open_screen(env, "notes.popup_delete")
    texts = {e.text for e in env._observe().elements or ()}
    assert "Delete note?" in texts and "Notes" not in texts


def test_dark_theme_changes_the_picture_not_the_tree() -> None:
    env = SimPhone(popup_rate=0.0)
    env.reset(TASK, 3)
    open_screen(env, "settings.display")
    env.world.data.settings["dark_mode"] = False
    light = env._observe()
    env.world.data.settings["dark_mode"] = True
    dark = env._observe()
    assert light.png_bytes() != dark.png_bytes()
    assert [e.text for e in light.elements or ()] == [e.text for e in dark.elements or ()]
