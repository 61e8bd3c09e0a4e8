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
from dataclasses import replace
from typing import Any, NamedTuple

from guigraph.geometry import NORM_MAX, BBox
from guigraph.types import UIElement

#: Roles whose accessible name is their own text (a button's label), not a description.
NAMED_BY_TEXT = frozenset(
    {"button", "link", "checkbox", "radio", "tab", "option", "menuitem", "text", "heading",
     "label", "listitem", "cell"}
)  # fmt: skip

#: How far (0..1000) a label may overlap its field's left or top edge, and how far above a
#: field a label may stand.
ROW_SLACK = 5.0
ABOVE_REACH = 60.0

#: Roles a user types into (a <select> too: typing an option's label chooses it).
EDITABLE = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "listbox"})

# Walks the elements under ROOT (a CSS selector, or the body), into open shadow roots and
# same-origin frames; returns plain arrays so the transfer stays small. Visible = has a box
# inside the viewport, not hidden by CSS. Every property is read through the DOM's own
# prototypes, never as `el.title` or `form.id`: a form holding <input name="title"> makes
# `form.title` that input, and a page may name an element after any property.
WALK_JS = r"""
(args) => {
  const [rootSel, skipSel] = args;
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const E = Element.prototype, H = HTMLElement.prototype, N = Node.prototype;
  const D = Document.prototype, S = ShadowRoot.prototype;
  const attr = (el, name) => E.getAttribute.call(el, name);
  const has = (el, name) => E.hasAttribute.call(el, name);
  const tagOf = getter(E, 'tagName'), shadowOf = getter(E, 'shadowRoot');
  const childNodesOf = getter(N, 'childNodes'), childrenOf = getter(E, 'children');
  const fragmentChildrenOf = getter(DocumentFragment.prototype, 'children');
  const textOf = getter(N, 'textContent'), typeOf = getter(N, 'nodeType');
  // HTML-only properties answer nothing on other elements (an <svg role="button">).
  const safe = (get) => (el) => { try { return get.call(el); } catch (e) { return undefined; } };
  const innerTextOf = safe(getter(H, 'innerText'));
  const editableOf = safe(getter(H, 'isContentEditable'));
  const parentOf = getter(N, 'parentElement');
  const activeOf = getter(D, 'activeElement'), bodyOf = getter(D, 'body');
  const shadowActiveOf = getter(S, 'activeElement');
  const rectOf = (el) => E.getBoundingClientRect.call(el);
  const own = (el, proto, name) => {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    try { return d && d.get ? d.get.call(el) : undefined; } catch (e) { return undefined; }
  };
  // A frame's document; null for another origin's.
  const frameDoc = (el) => own(el, HTMLIFrameElement.prototype, 'contentDocument') ||
    own(el, HTMLFrameElement.prototype, 'contentDocument') || null;
  const INPUT = HTMLInputElement.prototype, AREA = HTMLTextAreaElement.prototype;
  const SELECT = HTMLSelectElement.prototype;
  const W = window.innerWidth, H_ = window.innerHeight;
  const doc = document;
  // The title comes along (one round trip for the whole observation), read through the
  // prototype: a <form name="title"> is document.title.
  const title = getter(D, 'title').call(doc);
  const root = (rootSel && D.querySelector.call(doc, rootSel)) || bodyOf.call(doc);
  if (!root) return [W, H_, [], title];
  const skip = skipSel ? Array.from(D.querySelectorAll.call(doc, skipSel)) : [];
  // The focused element, through shadow roots and same-origin frames.
  let active = activeOf.call(doc);
  for (let i = 0; active && i < 20; i++) {
    const sr = shadowOf.call(active);
    const inner = sr ? shadowActiveOf.call(sr) : null;
    if (inner) { active = inner; continue; }
    if (/^i?frame$/i.test(tagOf.call(active))) {
      const d = frameDoc(active);
      const next = d ? activeOf.call(d) : null;
      if (next && next !== bodyOf.call(d)) { active = next; continue; }
    }
    break;
  }
  const out = [];
  const INPUT_ROLES = {checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button',
    reset: 'button', image: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox'};
  const TAG_ROLES = {a: 'link', button: 'button', select: 'combobox', textarea: 'textbox',
    img: 'img', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading',
    h6: 'heading', label: 'label', li: 'listitem', td: 'cell', th: 'cell', option: 'option',
    ul: 'list', ol: 'list', table: 'table', canvas: 'canvas', svg: 'img'};
  // Roles whose name comes from their content before their title (accessible-name rules).
  const BY_CONTENT = ['button', 'link', 'tab', 'option', 'menuitem', 'heading', 'cell',
    'listitem', 'checkbox', 'radio', 'switch'];
  // Roles whose inner elements are their label, not controls of their own.
  const ATOMIC = ['link', 'button', 'tab', 'menuitem', 'option', 'checkbox', 'radio', 'switch'];
  const INTERACTIVE = ['link', 'button', 'checkbox', 'radio', 'textbox', 'searchbox',
    'combobox', 'spinbutton', 'slider', 'tab', 'option', 'menuitem', 'switch', 'listbox'];
  const clean = (t) => (t || '').replace(/\s+/g, ' ').trim();
  const inputType = (el) => (attr(el, 'type') || 'text').toLowerCase();
  const roleOf = (el, tag) => {
    const explicit = attr(el, 'role');
    if (explicit) return explicit.split(' ')[0];
    if (tag === 'input') return INPUT_ROLES[inputType(el)] || 'textbox';
    if (tag === 'a' && !has(el, 'href')) return 'text';
    if (editableOf(el)) return 'textbox';
    return TAG_ROLES[tag] || 'text';
  };
  const ownText = (el) => {
    let t = '';
    for (const n of childNodesOf.call(el)) if (typeOf.call(n) === 3) t += textOf.call(n);
    return clean(t);
  };
  const classOf = (el) => {
    const c = attr(el, 'class');
    return c ? c.trim().split(/\s+/)[0] : '';
  };
  const labelsOf = (el, tag) => {
    if (tag === 'input') return own(el, INPUT, 'labels');
    if (tag === 'textarea') return own(el, AREA, 'labels');
    if (tag === 'select') return own(el, SELECT, 'labels');
    return null;
  };
  // A label's words without the fields inside it (a wrapped <textarea>'s text is its value).
  const FIELDS = ['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON'];
  const labelText = (label) => {
    let t = '';
    for (const n of childNodesOf.call(label)) {
      if (typeOf.call(n) === 3) t += textOf.call(n);
      else if (typeOf.call(n) === 1 && !FIELDS.includes(tagOf.call(n))) t += ' ' + labelText(n);
    }
    return t;
  };
  const contentText = (el) => clean(innerTextOf(el) || textOf.call(el));
  // A field the page gives no name is named as a person reads a form box by box: by the
  // words of the nearest enclosing element that has any, where that element holds no other
  // control (a caption under its box in the same entry, "Genre" after the input). Words that
  // enclose other controls too are a form's or a page's, not this field's.
  const TYPED = ['textbox', 'searchbox', 'combobox', 'spinbutton', 'listbox'];
  const CONTROLS = 'a[href], button, input:not([type=hidden]), textarea, select, ' +
    '[contenteditable]:not([contenteditable=false]), [role=button], [role=link], ' +
    '[role=checkbox], [role=radio], [role=textbox], [role=combobox], [onclick]';
  const groupLabel = (el) => {
    for (let node = parentOf.call(el); node && node !== root; node = parentOf.call(node)) {
      if (skip.some(s => N.contains.call(node, s))) return '';  // the harness's, not the page's
      const words = clean(labelText(node));
      if (!words) continue;
      const controls = E.querySelectorAll.call(node, CONTROLS);
      return controls.length === 1 ? words.replace(/\s*:$/, '') : '';
    }
    return '';
  };
  const nameOf = (el, tag, role) => {
    const aria = attr(el, 'aria-label');
    if (aria && aria.trim()) return aria.trim();
    const by = attr(el, 'aria-labelledby');
    if (by) {
      const t = clean(by.split(' ').map(i => D.getElementById.call(doc, i)).filter(Boolean)
        .map(e => textOf.call(e)).join(' '));
      if (t) return t;
    }
    const labels = labelsOf(el, tag);
    if (labels && labels.length) {
      const t = clean(Array.from(labels).map(labelText).join(' '));
      if (t) return t.replace(/\s*:$/, '');
    }
    if (tag === 'input' && /^(submit|button|reset)$/.test(inputType(el)))
      return clean(own(el, INPUT, 'value'));
    const alt = attr(el, 'alt');
    if (alt && alt.trim()) return alt.trim();
    if (tag === 'input' || tag === 'textarea') {
      const ph = attr(el, 'placeholder');
      if (ph && ph.trim()) return ph.trim();
    }
    // A field's own text is its value (a <textarea>'s page text, a <select>'s options): its
    // name is only what names it, else its title, else the words of its own group, else
    // nothing (the words beside it on the screen then name it: ``named_by_neighbours``).
    if (tag === 'textarea' || tag === 'select' || tag === 'input' || editableOf(el)) {
      const title = attr(el, 'title');
      if (title && title.trim()) return title.trim();
      return TYPED.includes(role) ? groupLabel(el) : '';
    }
    if (BY_CONTENT.includes(role)) {
      const t = contentText(el);
      if (t) return t;
    }
    const title = attr(el, 'title');
    if (title && title.trim()) return title.trim();
    const text = ownText(el);
    if (text) return text;
    // An icon: a clickable element with no text of its own is named by its class.
    if (childrenOf.call(el).length === 0 && classOf(el) &&
        getComputedStyle(el).cursor === 'pointer') return classOf(el);
    return '';
  };
  const valueOf = (el, tag) => {
    if (tag === 'select') {
      const i = own(el, SELECT, 'selectedIndex');
      const opts = own(el, SELECT, 'options');
      return i >= 0 && opts ? clean(opts[i].text) : '';
    }
    if (tag === 'input') {
      const type = inputType(el);
      if (/^(checkbox|radio|submit|button|reset|image|file|hidden)$/.test(type)) return '';
      const v = own(el, INPUT, 'value') || '';
      // A password is never read out, not even its length.
      return type === 'password' ? (v ? '••••••••' : '') : v;
    }
    if (tag === 'textarea') return own(el, AREA, 'value') || '';
    if (editableOf(el)) return (innerTextOf(el) || '').trim();
    return '';
  };
  const checkedOf = (el, tag) =>
    !!((tag === 'input' && own(el, INPUT, 'checked')) || attr(el, 'aria-checked') === 'true' ||
       attr(el, 'aria-selected') === 'true');
  // Whether something drawn over the element (a pop-up: a calendar over the Submit button)
  // takes every click on it: the hit tests at its centre and at four inner points all land
  // on another element, so it is shown but cannot be clicked now (two buttons that overlap
  // a little stay clickable). Only for the top document, where the hit test and the element
  // share one tree.
  const rootOf = N.getRootNode, hitAt = D.elementFromPoint;
  const INNER = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
  const elsewhere = (el, x, y) => {
    const hit = hitAt.call(doc, x, y);
    return !!hit && !N.contains.call(el, hit) && !N.contains.call(hit, el);
  };
  const covered = (el, r) => rootOf.call(el) === doc && INNER.every(([fx, fy]) =>
    elsewhere(el, r.left + fx * r.width, r.top + fy * r.height));
  const visit = (el, dx, dy, inAtomic) => {
    if (skip.some(s => N.contains.call(s, el))) return;
    const tag = tagOf.call(el).toLowerCase();
    if (tag === 'script' || tag === 'style' || tag === 'head' || tag === 'option' ||
        tag === 'template' || tag === 'noscript') return;
    const r = rectOf(el);
    const x1 = r.left + dx, y1 = r.top + dy, x2 = r.right + dx, y2 = r.bottom + dy;
    const st = getComputedStyle(el);
    if (st.display === 'none') return;
    const boxed = r.width >= 2 && r.height >= 2 && x2 > 0 && y2 > 0 && x1 < W && y1 < H_;
    const shown = boxed && st.visibility !== 'hidden' && parseFloat(st.opacity) !== 0;
    const role = roleOf(el, tag);
    if (shown && !(inAtomic && !INTERACTIVE.includes(role))) {
      const interactive = INTERACTIVE.includes(role);
      const clickable = (interactive || role === 'label' || st.cursor === 'pointer' ||
        has(el, 'onclick')) && !covered(el, r);
      const scrollable = (st.overflowY === 'auto' || st.overflowY === 'scroll') &&
        getter(E, 'scrollHeight').call(el) > getter(E, 'clientHeight').call(el) + 1;
      const name = nameOf(el, tag, role);
      if (interactive || clickable || scrollable || name || tag === 'img') {
        // No id: the first class names the element's kind, as a resource id names a list
        // row's field on Android (every sender of an inbox is ".email-sender").
        const id = attr(el, 'id') || '';
        const cls = classOf(el);
        const disabled = has(el, 'disabled') || attr(el, 'aria-disabled') === 'true';
        out.push([role, name, valueOf(el, tag), id || (cls ? '.' + cls : ''), el === active,
          checkedOf(el, tag), clickable, scrollable, !disabled, Math.max(0, x1),
          Math.max(0, y1), Math.min(W, x2), Math.min(H_, y2)]);
      }
    }
    // An icon's drawing is not a control; neither is a link's or a button's inner text.
    if (tag === 'svg' || tag === 'canvas' || tag === 'img') return;
    const atomic = inAtomic || (shown && ATOMIC.includes(role));
    if (tag === 'iframe' || tag === 'frame') {
      const inner = frameDoc(el);
      const body = inner ? bodyOf.call(inner) : null;
      if (body && boxed) {
        const bx = x1 + getter(E, 'clientLeft').call(el), by = y1 + getter(E, 'clientTop').call(el);
        visit(body, bx, by, false);
      }
      return;
    }
    const sr = shadowOf.call(el);
    const kids = sr ? Array.from(fragmentChildrenOf.call(sr)) : [];
    for (const child of kids) visit(child, dx, dy, atomic);
    for (const child of Array.from(childrenOf.call(el))) visit(child, dx, dy, atomic);
  };
  visit(root, 0, 0, false);
  // The page itself scrolls, yet no element says so (the document's overflow is visible):
  // its scroll bar, a strip at the right edge, is the element that scrolls, as in an
  // accessibility tree. Only for a walk of the whole page.
  const top = getter(D, 'scrollingElement').call(doc);
  const clipped = (el) => el && /hidden|clip/.test(getComputedStyle(el).overflowY);
  if (!rootSel && top && !clipped(top) && !clipped(bodyOf.call(doc)) &&
      getter(E, 'scrollHeight').call(top) > getter(E, 'clientHeight').call(top) + 1) {
    const inner = getter(E, 'clientWidth').call(top);
    const x1 = inner > 0 && inner < W - 1 ? inner : W - 8;
    out.push(['scrollbar', '', '', '', false, false, false, true, true, x1, 0, W, H_]);
  }
  return [W, H_, out, title];
}
"""


class Walk(NamedTuple):
    """What one walk of a page read: the viewport's size, its elements and the page's title."""

    width: int
    height: int
    elements: tuple[UIElement, ...]
    title: str


def read_walk(raw: Sequence[Any]) -> Walk:
    """What ``WALK_JS`` returned, as a :class:`Walk`."""
    width, height, elements = to_elements(raw)
    return Walk(width, height, elements, str(raw[3] or ""))


def to_elements(raw: Sequence[Any]) -> tuple[int, int, tuple[UIElement, ...]]:
    """The walk's result as (viewport width, height, elements)."""
    width, height, rows = int(raw[0]), int(raw[1]), raw[2]
    return width, height, named_by_neighbours(tuple(_element(row, width, height) for row in rows))


def named_by_neighbours(elements: tuple[UIElement, ...]) -> tuple[UIElement, ...]:
    """Fields the page gives no name (no ``<label>``, ``aria-label`` or placeholder) named
    as a person reads a form: by the words left of them on their row, else by the words
    right above them ("Director:" in a table cell beside the box). A form whose fields
    change places keeps each field's name."""
    # A heading titles a section or a page ("Editing"), not the field under it.
    words = [
        e for e in elements
        if not e.editable and e.label.strip() and not e.clickable and e.class_name != "heading"
    ]  # fmt: skip
    named = []
    for element in elements:
        if element.editable and not element.content_desc.strip():
            label = _neighbour_label(element, words)
            if label:
                element = replace(element, content_desc=label)
        named.append(element)
    return tuple(named)


def _neighbour_label(field: UIElement, words: Sequence[UIElement]) -> str:
    box = field.bbox
    row = [
        e for e in words
        if e.bbox.y1 <= box.center.y <= e.bbox.y2 and e.bbox.x2 <= box.x1 + ROW_SLACK
    ]  # fmt: skip
    above = [
        e for e in words
        if box.y1 - ABOVE_REACH <= e.bbox.y2 <= box.y1 + ROW_SLACK
        and e.bbox.x1 < box.x2 and e.bbox.x2 > box.x1
    ]  # fmt: skip
    if row:
        chosen = max(row, key=lambda e: e.bbox.x2)
    elif above:
        chosen = max(above, key=lambda e: e.bbox.y2)
    else:
        return ""
    return chosen.label.strip().rstrip(":").strip()


def _element(row: Sequence[Any], width: int, height: int) -> UIElement:
    role, name, value, html_id, focused, checked, clickable, scrollable, enabled, *box = row
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
        enabled=bool(enabled),
    )


def _clip(value: float) -> float:
    return round(min(NORM_MAX, max(0.0, value)), 1)
