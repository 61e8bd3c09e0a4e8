"""The listener a recording puts in every document of the browser (``envs.web.recorder``).

It runs in every frame of every page, loaded now or later (a context init script), listens on
the window in the capture phase (so a page's own handlers cannot hide an event from it, and
events from open shadow roots arrive with their real target through ``composedPath``), and
reports each of a person's input events to Python through the binding ``BINDING``. It never
sends what a password field holds: only that it was typed into. Properties are read through
the DOM's own prototypes, as the DOM walk does (a page can shadow ``el.value``'s name).
"""

from __future__ import annotations

#: The function the recorder exposes to every frame.
BINDING = "__guigraphRecord"

RECORD_JS = r"""
(() => {
  if (window.__guigraphRecording) return;
  window.__guigraphRecording = true;
  // The binding may come a moment after this script: wait for it (a few tries).
  const send = (event, tries = 0) => {
    if (typeof window.__guigraphRecord !== 'function') {
      if (tries < 50) setTimeout(() => send(event, tries + 1), 20);
      return;
    }
    try { window.__guigraphRecord({ t: Date.now(), ...event }); } catch (e) { /* ended */ }
  };
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const E = Element.prototype;
  const tagOf = (el) => getter(E, 'tagName').call(el).toLowerCase();
  const attr = (el, name) => E.getAttribute.call(el, name);
  // Elements are told apart by a number in their document, and documents by a token.
  const doc = Math.random().toString(36).slice(2);
  const ids = new WeakMap();
  let nextId = 1;
  const idOf = (el) => {
    if (!ids.has(el)) ids.set(el, nextId++);
    return `${doc}/${ids.get(el)}`;
  };
  const realTarget = (event) => {
    const path = event.composedPath();
    return path.length && path[0] instanceof Element ? path[0] : event.target;
  };
  const TEXT_TYPES = /^(text|search|email|url|tel|password|number|)$/;
  // 'text' for a one-line field, 'multiline' for a textarea or editable block, 'select',
  // or '' for anything else.
  const fieldKind = (el) => {
    if (!(el instanceof Element)) return '';
    const tag = tagOf(el);
    const type = (attr(el, 'type') || '').toLowerCase();
    if (tag === 'input') return TEXT_TYPES.test(type) ? 'text' : '';
    if (tag === 'textarea') return 'multiline';
    if (tag === 'select') return 'select';
    try {
      if (getter(HTMLElement.prototype, 'isContentEditable').call(el)) return 'multiline';
    } catch (e) { /* not an HTML element */ }
    return '';
  };
  const isSecret = (el) =>
    tagOf(el) === 'input' && (attr(el, 'type') || '').toLowerCase() === 'password';
  const valueOf = (el) => {
    const tag = tagOf(el);
    if (tag === 'input') return getter(HTMLInputElement.prototype, 'value').call(el);
    if (tag === 'textarea') return getter(HTMLTextAreaElement.prototype, 'value').call(el);
    // An icon's <svg> or <path> is an Element but no HTMLElement: it has no innerText.
    return el instanceof HTMLElement ? getter(HTMLElement.prototype, 'innerText').call(el) : '';
  };
  const centre = (el) => {
    const r = E.getBoundingClientRect.call(el);
    return [r.left + r.width / 2, r.top + r.height / 2];
  };
  const field = (el) => {
    if (!(el instanceof Element)) {
      return { field: '', kind: '', secret: false, value: '', x: 0, y: 0 };
    }
    const kind = fieldKind(el);
    const secret = isSecret(el);
    const [x, y] = centre(el);
    return { field: idOf(el), kind, secret, value: secret ? '' : valueOf(el), x, y };
  };
  const top = window === window.top;
  send({ kind: 'load', top, url: location.href,
         how: (performance.getEntriesByType('navigation')[0] || {}).type || 'navigate' });
  // A page restored from the back/forward cache runs no script again: it says so here.
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) send({ kind: 'load', top, url: location.href, how: 'back_forward' });
  });
  const on = (type, handler) =>
    window.addEventListener(type, handler, { capture: true, passive: true });
  on('click', (event) => {
    // detail 0: a click the keyboard made (Enter on a button), recorded as that key;
    // detail 2: the second click of a double click, recorded as the dblclick.
    if (event.detail !== 1 || !event.isTrusted) return;
    send({ kind: 'click', x: event.clientX, y: event.clientY, f: field(realTarget(event)) });
  });
  on('dblclick', (event) => {
    if (event.isTrusted) send({ kind: 'dblclick', x: event.clientX, y: event.clientY });
  });
  on('keydown', (event) => {
    if (!event.isTrusted || event.isComposing) return;
    const el = realTarget(event);
    send({ kind: 'key', key: event.key, ctrl: event.ctrlKey, alt: event.altKey,
           meta: event.metaKey, shift: event.shiftKey, f: field(el) });
  });
  on('beforeinput', (event) => {
    const el = realTarget(event);
    if (event.isTrusted && fieldKind(el)) send({ kind: 'beforeinput', f: field(el) });
  });
  on('input', (event) => {
    const el = realTarget(event);
    const kind = fieldKind(el);
    if (!event.isTrusted || !kind) return;
    if (kind === 'select') {
      const index = getter(HTMLSelectElement.prototype, 'selectedIndex').call(el);
      const option = getter(HTMLSelectElement.prototype, 'options').call(el)[index];
      const label = option ? getter(HTMLElement.prototype, 'innerText').call(option).trim() : '';
      send({ kind: 'choose', label, f: field(el) });
      return;
    }
    send({ kind: 'input', f: field(el) });
  });
  on('wheel', (event) => {
    if (event.isTrusted) {
      const { clientX: x, clientY: y, deltaX: dx, deltaY: dy } = event;
      send({ kind: 'wheel', x, y, dx, dy });
    }
  });
  on('focus', (event) => {
    if (event.isTrusted && event.target === window && top) send({ kind: 'activate' });
  });
})();
"""
