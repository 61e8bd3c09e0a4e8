"""Skins: the same SimPhone screens as other platforms would report them.

The phone's behaviour never changes; only what its observations say about elements does. They
keep code above ``envs/`` honest about platform conventions: a rule that works only because
SimPhone's ids read ``shop:id/price`` fails on the ``html-ids`` skin, and one that needs ids at
all fails on ``no-ids`` (elements carry text, role and bounds only, as on many web pages).

- ``standard``: ``<app>:id/<name>`` ids, Android's conventions (the default);
- ``html-ids``: DOM-style ids (``shop-price``) read with the web profile's id scheme;
- ``no-ids``: no resource ids at all.
"""

from __future__ import annotations

from dataclasses import replace

from guigraph.envs.conventions import ANDROID, Conventions, IdScheme
from guigraph.types import UIElement

#: SimPhone's home screen is an app of its own name; pop-ups and loading as on Android.
SIMPHONE = replace(ANDROID, name="simphone")

SKINS: dict[str, Conventions] = {
    "standard": SIMPHONE,
    "html-ids": replace(SIMPHONE, name="simphone/html-ids", id_scheme=IdScheme.HTML),
    "no-ids": replace(SIMPHONE, name="simphone/no-ids", id_scheme=IdScheme.NONE),
}


def skin_conventions(skin: str) -> Conventions:
    try:
        return SKINS[skin]
    except KeyError:
        raise ValueError(f"unknown skin {skin!r}; available: {', '.join(SKINS)}") from None


def apply_skin(skin: str, elements: tuple[UIElement, ...]) -> tuple[UIElement, ...]:
    """The elements as ``skin`` reports them."""
    if skin == "standard":
        return elements
    if skin == "html-ids":
        return tuple(replace(e, resource_id=_html_id(e.resource_id)) for e in elements)
    if skin == "no-ids":
        return tuple(replace(e, resource_id="") for e in elements)
    raise ValueError(f"unknown skin {skin!r}; available: {', '.join(SKINS)}")


def _html_id(resource_id: str) -> str:
    """``shop:id/product_3`` -> ``shop-product_3`` (a DOM id; the app survives as a prefix)."""
    app, sep, name = resource_id.partition(":id/")
    return f"{app}-{name}" if sep else resource_id
