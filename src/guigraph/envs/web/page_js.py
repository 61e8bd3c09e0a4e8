"""Small scripts the web world runs in a page to act on it (the DOM walk is ``envs.web.dom``).

Each reads the page through the DOM's own prototypes (``Element.prototype.getAttribute.call``),
never through names a page can shadow (a form's ``<input name="tagName">`` is ``form.tagName``),
and finds the focused element or the element under a point through open shadow roots and
same-origin frames, as a person's click and keys reach them.
"""

from __future__ import annotations

# Helpers every script below starts with.
_PRELUDE = r"""
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const E = Element.prototype, D = Document.prototype, S = ShadowRoot.prototype;
  const tagOf = (el) => getter(E, 'tagName').call(el).toLowerCase();
  const attr = (el, name) => E.getAttribute.call(el, name);
  const has = (el, name) => E.hasAttribute.call(el, name);
  const shadowOf = getter(E, 'shadowRoot');
  const parentOf = getter(Node.prototype, 'parentElement');
  const frameDoc = (el) => {
    for (const proto of [HTMLIFrameElement.prototype, HTMLFrameElement.prototype]) {
      try { const d = getter(proto, 'contentDocument').call(el); if (d) return d; }
      catch (e) { /* not this kind of frame, or another origin */ }
    }
    return null;
  };
  const editable = (el) => {
    try { return getter(HTMLElement.prototype, 'isContentEditable').call(el); }
    catch (e) { return false; }
  };
  // The focused element, through shadow roots and same-origin frames.
  const deepActive = () => {
    let el = getter(D, 'activeElement').call(document);
    for (let i = 0; el && i < 20; i++) {
      const sr = shadowOf.call(el);
      const inner = sr ? getter(S, 'activeElement').call(sr) : null;
      if (inner) { el = inner; continue; }
      const d = /^i?frame$/.test(tagOf(el)) ? frameDoc(el) : null;
      const next = d ? getter(D, 'activeElement').call(d) : null;
      if (next && next !== getter(D, 'body').call(d)) { el = next; continue; }
      break;
    }
    return el;
  };
  // The element under a viewport point, through shadow roots and same-origin frames.
  const deepAt = (x, y) => {
    let root = document, el = D.elementFromPoint.call(document, x, y);
    for (let i = 0; el && i < 20; i++) {
      const sr = shadowOf.call(el);
      if (sr) {
        const inner = S.elementFromPoint.call(sr, x, y);
        if (inner && inner !== el) { el = inner; continue; }
      }
      const d = /^i?frame$/.test(tagOf(el)) ? frameDoc(el) : null;
      if (d) {
        const r = E.getBoundingClientRect.call(el);
        x -= r.left + getter(E, 'clientLeft').call(el);
        y -= r.top + getter(E, 'clientTop').call(el);
        const inner = D.elementFromPoint.call(d, x, y);
        if (inner) { root = d; el = inner; continue; }
      }
      break;
    }
    return el;
  };
  const isField = (el) => {
    if (!el) return false;
    const tag = tagOf(el);
    if (tag === 'textarea') return true;
    if (tag === 'input') return !/^(checkbox|radio|submit|button|reset|image|file|range|color)$/i
      .test(attr(el, 'type') || 'text');
    return editable(el);
  };
"""

#: Whether something a person would click is under the point (the element is still there).
CLICKABLE_AT_JS = (
    "([x, y]) => {"
    + _PRELUDE
    + r"""
  const TAGS = ['a', 'button', 'input', 'select', 'textarea', 'label', 'option', 'summary'];
  for (let el = deepAt(x, y); el; el = parentOf.call(el)) {
    const tag = tagOf(el);
    if (tag === 'body' || tag === 'html') break;
    if (TAGS.includes(tag)) return true;
    if (has(el, 'onclick') || attr(el, 'role') || editable(el)) return true;
    if (getComputedStyle(el).cursor === 'pointer') return true;
  }
  return false;
}"""
)

#: Before typing: what has the focus (``none``, ``select``, ``text``, ``other``); in a text
#: field with nothing selected, the caret goes to the end (typing appends, as the team expects).
PREPARE_TYPING_JS = (
    "() => {"
    + _PRELUDE
    + r"""
  const el = deepActive();
  if (!el) return 'none';
  const tag = tagOf(el);
  if (tag === 'body' || tag === 'html') return 'none';
  if (tag === 'select') return 'select';
  if (/^i?frame$/.test(tag)) return 'text';  // another origin's frame has the keys
  if (!isField(el)) return 'other';
  // A date or time field types segment by segment from the one clicked: typing starts at
  // its first segment, as it does after the field is reached with Tab.
  if (tag === 'input' && /^(date|time|datetime-local|month|week)$/i.test(
      E.getAttribute.call(el, 'type') || '')) {
    HTMLElement.prototype.blur.call(el);
    HTMLElement.prototype.focus.call(el);
    return 'segments';
  }
  if (tag === 'input' || tag === 'textarea') {
    const P = tag === 'input' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
    try {
      const start = getter(P, 'selectionStart').call(el);
      const end = getter(P, 'selectionEnd').call(el);
      if (start === end) {
        const n = getter(P, 'value').call(el).length;
        P.setSelectionRange.call(el, n, n);
      }
    } catch (e) { /* an email or number field has no caret to move */ }
  } else {
    const sel = el.ownerDocument.getSelection();
    if (sel && sel.isCollapsed) { sel.selectAllChildren(el); sel.collapseToEnd(); }
  }
  return 'text';
}"""
)

#: A long press on a text field: focus it and select its whole text (what is typed next
#: replaces it). False when no text field is under the point.
SELECT_FIELD_JS = (
    "([x, y]) => {"
    + _PRELUDE
    + r"""
  let el = deepAt(x, y);
  if (el && tagOf(el) === 'label') {
    const target = getter(HTMLLabelElement.prototype, 'control').call(el);
    if (target) el = target;
  }
  if (!isField(el)) return false;
  HTMLElement.prototype.focus.call(el);
  const tag = tagOf(el);
  if (tag === 'input') HTMLInputElement.prototype.select.call(el);
  else if (tag === 'textarea') HTMLTextAreaElement.prototype.select.call(el);
  else el.ownerDocument.getSelection().selectAllChildren(el);
  return true;
}"""
)

#: Choose the option of the focused ``<select>`` with this label (or value).
SELECT_OPTION_JS = (
    "(label) => {"
    + _PRELUDE
    + r"""
  const el = deepActive();
  const P = HTMLSelectElement.prototype;
  const want = label.toLowerCase();
  const options = Array.from(getter(P, 'options').call(el));
  const option = options.find(o => o.text.trim().toLowerCase() === want ||
    o.value.toLowerCase() === want);
  if (!option) return false;
  Object.getOwnPropertyDescriptor(P, 'value').set.call(el, option.value);
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return true;
}"""
)
