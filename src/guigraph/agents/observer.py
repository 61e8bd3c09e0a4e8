"""The rule-based observer: an observation becomes a task-independent semantic state.

It keeps every element (MGA's point: a task-conditioned summary drops what a later step needs),
names each by role and label, and records what appeared and disappeared since the last screen.
"""

from __future__ import annotations

import hashlib

from guigraph.agents.roles import ElementView, SemanticState
from guigraph.types import Observation, UIElement, element_keys

_TOGGLE_CLASSES = ("switch", "checkbox", "toggle", "radio")


def element_role(element: UIElement) -> str:
    if element.editable:
        return "field"
    if any(word in element.class_name.lower() for word in _TOGGLE_CLASSES):
        return "toggle"
    if element.clickable:
        return "button"
    if element.scrollable:
        return "list"
    return "text"


def state_fingerprint(observation: Observation, views: tuple[ElementView, ...]) -> str:
    """A digest of what is visible; equal fingerprints mean the screen did not change."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update((observation.app or "").encode())
    if views:
        for view in views:
            e = view.element
            digest.update(f"{view.role}|{view.label}|{e.focused}|{e.checked}|{e.bbox}".encode())
    elif observation.has_screenshot:
        digest.update(observation.png_bytes())
    return digest.hexdigest()


class RuleObserver:
    """Encodes the UI tree; screenshot-only observations give a state with no elements."""

    def observe(self, observation: Observation, previous: SemanticState | None) -> SemanticState:
        elements = observation.elements or ()
        keys = element_keys(elements, observation.app)
        views = tuple(
            ElementView(i, element.label or element.class_name, element_role(element), element, key)
            for i, (element, key) in enumerate(zip(elements, keys, strict=True))
        )
        texts = tuple(t for e in observation.elements or () for t in (e.text, e.content_desc) if t)
        before = set(previous.texts) if previous else set()
        after = set(texts)
        return SemanticState(
            observation=observation,
            app=observation.app,
            elements=views,
            texts=texts,
            fingerprint=state_fingerprint(observation, views),
            appeared=tuple(t for t in texts if t not in before) if previous else (),
            disappeared=tuple(t for t in previous.texts if t not in after) if previous else (),
        )
