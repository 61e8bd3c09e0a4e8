"""A page's UI elements from one JavaScript walk of the DOM (one round trip, a few ms).

Asking Playwright element by element costs a round trip each; one ``page.evaluate`` that walks
the DOM and returns every visible element with its box, role, accessible name, value, focus and
checked state is far faster. Elements map onto :class:`UIElement` as an accessibility tree
would: the role is ``class_name``, the accessible name ``content_desc`` (and ``text`` for
elements whose name is their text), a field's value ``text``, the HTML id ``resource_id`` —
or, for an element without one, its first CSS class as ``.class`` (the kind of element: every
row of a list shares it, as rows share a resource id on Android).
Boxes are clipped to the viewport and normalized to 0..1000.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guigraph.geometry import NORM_MAX, BBox
from guigraph.types import UIElement

#: Roles whose accessible name is their own text (a button's label), not a description.
NAMED_BY_TEXT = frozenset(
    {"button", "link", "checkbox", "radio", "tab", "option", "menuitem", "text", "heading",
     "label", "listitem", "cell"}
)  # fmt: skip

#: Roles a user types into (a <select> too: typing an option's label chooses it).
EDITABLE = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "listbox"})

# Walks the elements under ROOT (a CSS selector, or the body); returns plain arrays so the
# transfer stays small. Visible = has a box inside the viewport, not hidden by CSS.
WALK_JS = r"""
(args) => {
  const [rootSel, skipSel] = args;
  const W = window.innerWidth, H = window.innerHeight;
  const root = (rootSel && document.querySelector(rootSel)) || document.body;
  if (!root) return [W, H, []];
  const skip = skipSel ? Array.from(document.querySelectorAll(skipSel)) : [];
  const active = document.activeElement;
  const out = [];
  const INPUT_ROLES = {checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button',
    reset: 'button', image: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox'};
  const TAG_ROLES = {a: 'link', button: 'button', select: 'combobox', textarea: 'textbox',
    img: 'img', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading',
    h6: 'heading', label: 'label', li: 'listitem', td: 'cell', th: 'cell', option: 'option',
    ul: 'list', ol: 'list', table: 'table', canvas: 'canvas', svg: 'img'};
  const roleOf = (el, tag) => {
    const explicit = el.getAttribute('role');
    if (explicit) return explicit.split(' ')[0];
    if (tag === 'input') return INPUT_ROLES[(el.type || 'text').toLowerCase()] || 'textbox';
    if (tag === 'a' && !el.hasAttribute('href')) return 'text';
    if (el.isContentEditable) return 'textbox';
    return TAG_ROLES[tag] || 'text';
  };
  const ownText = (el) => {
    let t = '';
    for (const n of el.childNodes) if (n.nodeType === 3) t += n.textContent;
    return t.replace(/\s+/g, ' ').trim();
  };
  const nameOf = (el, tag, role) => {
    const aria = el.getAttribute('aria-label');
    if (aria) return aria.trim();
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(' ').map(i => document.getElementById(i)).filter(Boolean)
        .map(e => e.textContent).join(' ').replace(/\s+/g, ' ').trim();
      if (t) return t;
    }
    if (el.labels && el.labels.length) {
      const t = Array.from(el.labels).map(l => l.textContent).join(' ')
        .replace(/\s+/g, ' ').trim();
      if (t) return t;
    }
    if (tag === 'input' && /^(submit|button|reset)$/i.test(el.type)) return (el.value || '').trim();
    if (el.placeholder) return el.placeholder.trim();
    if (el.alt) return el.alt.trim();
    if (el.title) return el.title.trim();
    if (['button', 'link', 'tab', 'option', 'menuitem', 'heading', 'cell', 'listitem']
        .includes(role)) return (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
    const own = ownText(el);
    if (own) return own;
    // An icon: a clickable element with no text of its own is named by its class.
    if (el.children.length === 0 && typeof el.className === 'string' && el.className.trim() &&
        getComputedStyle(el).cursor === 'pointer') return el.className.trim().split(/\s+/)[0];
    return '';
  };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
  for (let el = root; el; el = walker.nextNode()) {
    if (skip.some(s => s.contains(el))) continue;
    const tag = el.tagName.toLowerCase();
    if (tag === 'script' || tag === 'style' || tag === 'head' || tag === 'option') continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.right <= 0 || r.bottom <= 0 || r.left >= W || r.top >= H)
      continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none' || parseFloat(st.opacity) === 0)
      continue;
    const role = roleOf(el, tag);
    const interactive = ['link', 'button', 'checkbox', 'radio', 'textbox', 'searchbox',
      'combobox', 'spinbutton', 'slider', 'tab', 'option', 'menuitem', 'switch', 'listbox']
      .includes(role);
    const clickable = interactive || role === 'label' || st.cursor === 'pointer' ||
      el.hasAttribute('onclick');
    const scrollable = (st.overflowY === 'auto' || st.overflowY === 'scroll') &&
      el.scrollHeight > el.clientHeight + 1;
    const name = nameOf(el, tag, role);
    if (!interactive && !clickable && !scrollable && !name && tag !== 'img') continue;
    let value = '';
    if (tag === 'select') value = el.selectedIndex >= 0 ? el.options[el.selectedIndex].text : '';
    else if (tag === 'input' || tag === 'textarea') {
      value = /^(checkbox|radio|submit|button|reset|image)$/i.test(el.type || '') ? '' :
        (el.type === 'password' ? '•'.repeat(el.value.length) : el.value);
    } else if (el.isContentEditable) value = el.innerText.trim();
    const checked = !!(el.checked || el.getAttribute('aria-checked') === 'true' ||
      el.getAttribute('aria-selected') === 'true');
    // No id: the first class names the element's kind, as a resource id names a list row's
    // field on Android (every sender of an inbox is ".email-sender").
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '';
    const rid = el.id || (cls ? '.' + cls : '');
    out.push([role, name, value, rid, el === active, checked, clickable, scrollable,
      Math.max(0, r.left), Math.max(0, r.top), Math.min(W, r.right), Math.min(H, r.bottom)]);
  }
  return [W, H, out];
}
"""


def to_elements(raw: Sequence[Any]) -> tuple[int, int, tuple[UIElement, ...]]:
    """The walk's result as (viewport width, height, elements)."""
    width, height, rows = int(raw[0]), int(raw[1]), raw[2]
    return width, height, tuple(_element(row, width, height) for row in rows)


def _element(row: Sequence[Any], width: int, height: int) -> UIElement:
    role, name, value, html_id, focused, checked, clickable, scrollable, *box = row
    sx, sy = NORM_MAX / max(width, 1), NORM_MAX / max(height, 1)
    x1, y1, x2, y2 = (float(v) for v in box)
    bbox = BBox(_clip(x1 * sx), _clip(y1 * sy), _clip(max(x2, x1) * sx), _clip(max(y2, y1) * sy))
    editable = role in EDITABLE
    if editable:
        text, desc = str(value), str(name)
    elif role in NAMED_BY_TEXT:
        text, desc = str(name), ""
    else:
        text, desc = "", str(name)
    return UIElement(
        bbox=bbox,
        text=text,
        content_desc=desc,
        class_name=str(role),
        resource_id=str(html_id),
        clickable=bool(clickable),
        editable=editable,
        scrollable=bool(scrollable),
        focused=bool(focused),
        checked=bool(checked),
    )


def _clip(value: float) -> float:
    return round(min(NORM_MAX, max(0.0, value)), 1)
