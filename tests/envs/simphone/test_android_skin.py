"""The ``android`` skin: SimPhone's screen as a real ``uiautomator dump`` writes it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from guigraph.envs import check_env, make
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.uixml import hierarchy_xml
from guigraph.types import Action, UIElement


def _shop(seed: int = 4) -> SimPhone:
    env = SimPhone(skin="android", popup_rate=0.0)
    env.reset(env.make_task("shop.cart", seed), seed)
    env.step(Action.open_app("shop"))
    return env


def test_the_dump_is_a_nested_hierarchy_with_framework_containers_and_package_ids() -> None:
    env = _shop()
    root = ET.fromstring(hierarchy_xml(env.view(), env.device))
    assert root.tag == "hierarchy" and root.get("rotation") == "0"
    decor = root[0]
    assert decor.get("class") == "android.widget.FrameLayout" and decor.get("resource-id") == ""
    assert decor.get("bounds") == "[0,0][360,780]"
    content = decor.find(".//node[@resource-id='android:id/content']")
    assert content is not None and content.get("class") == "android.widget.FrameLayout"
    nodes = list(root.iter("node"))
    assert {n.get("package") for n in nodes} == {"com.simphone.shop"}
    ids = [n.get("resource-id") or "" for n in nodes]
    assert all(i.startswith(("com.simphone.shop:id/", "android:id/")) for i in ids if i)
    containers = [n for n in nodes if len(n) and not n.get("text")]
    assert len(containers) >= 4  # decor, content, root, toolbar or list ...
    depth = max(len(path) for path in _paths(root))
    assert depth >= 5
    for node in nodes:  # every attribute uiautomator writes
        for name in ("index", "text", "resource-id", "class", "package", "content-desc",
                     "checkable", "checked", "clickable", "enabled", "focusable", "focused",
                     "scrollable", "long-clickable", "password", "selected", "bounds"):  # fmt: skip
            assert node.get(name) is not None, name


def _paths(node: ET.Element, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    here = (*path, node.get("class", ""))
    return [here] + [p for child in node for p in _paths(child, here)]


def test_a_dialog_is_its_own_window_with_framework_title_and_message_ids() -> None:
    env = SimPhone(skin="android", popup_rate=1.0)
    env.reset(env.make_task("shop.cart", 4), 4)
    obs = env.step(Action.open_app("shop")).observation
    view = env.view()
    assert view.popup is not None, "popup_rate=1 greets the first launch with a dialog"
    ids = {e.resource_id: e for e in obs.elements or ()}
    assert "android:id/title" in ids and ids["android:id/title"].text
    assert not any(i.endswith(":id/toolbar") for i in ids)  # the screen beneath is not dumped


def test_elements_keep_realistic_shape_and_round_trip_through_dicts() -> None:
    obs = _shop().step(Action.click(500, 133)).observation
    elements = obs.elements or ()
    assert obs.app == "com.simphone.shop" and obs.activity == "com.simphone.shop.MainActivity"
    assert any(e.class_name.endswith("FrameLayout") and not e.text for e in elements)
    editable = [e for e in elements if e.editable]
    assert editable and editable[0].class_name == "android.widget.EditText"
    assert editable[0].focused
    for element in elements:
        assert UIElement.from_dict(element.to_dict()) == element
    old = {"bbox": [0, 0, 10, 10], "text": "x"}  # written before package/enabled existed
    assert UIElement.from_dict(old).enabled and UIElement.from_dict(old).package == ""
    assert "enabled" not in UIElement.from_dict(old).to_dict()
    disabled = UIElement.from_dict({**old, "enabled": False, "package": "p"})
    assert disabled.to_dict() == {**old, "package": "p", "enabled": False}


def test_check_env_passes_on_the_android_skin() -> None:
    task = make("simphone").make_task("info.weather", 2)
    check_env(lambda: make("simphone", skin="android"), task, seed=2)
