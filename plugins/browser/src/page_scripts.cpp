#include "page_scripts.hpp"

namespace actionhost::browser::scripts {

const char *const kMarkElements = R"JS((async () => {
  const BID = 'bid', VIS = 'browsergym_visibility_ratio', SOM = 'browsergym_set_of_marks';
  const SOM_TAGS = ['input', 'textarea', 'select', 'button', 'a', 'iframe', 'video', 'li', 'td', 'option'];
  const warnings = [];
  function* frameIds() {
    const lower = 'abcdefghijklmnopqrstuvwxyz', upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    for (let extra = 0; ; extra++) {
      for (const first of lower) {
        if (extra === 0) { yield first; continue; }
        const idx = new Array(extra).fill(0);
        while (true) {
          yield first + idx.map(i => upper[i]).join('');
          let k = extra - 1;
          while (k >= 0 && idx[k] === 25) { idx[k] = 0; k--; }
          if (k < 0) break;
          idx[k]++;
        }
      }
    }
  }
  function collect(root, out) {
    for (const el of root.querySelectorAll('*')) {
      out.push(el);
      if (el.shadowRoot) collect(el.shadowRoot, out);
    }
    return out;
  }
  function deepElementFromPoint(doc, x, y) {
    let el = doc.elementFromPoint(x, y);
    while (el && el.shadowRoot) {
      const inner = el.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  }
  function composedContains(ancestor, node) {
    while (node) {
      if (node === ancestor) return true;
      node = node.parentNode || node.host;
    }
    return false;
  }
  async function markFrame(win, doc, prefix) {
    if (win.browsergym_elem_counter === undefined) {
      win.browsergym_elem_counter = 0;
      win.browsergym_frame_id_generator = frameIds();
    }
    const elements = collect(doc, []);
    const pending = new Set(elements);
    const observer = new win.IntersectionObserver(entries => {
      for (const entry of entries) {
        let ratio = entry.intersectionRatio;
        if (ratio === 0 && entry.isIntersecting) ratio = 1;
        entry.target.setAttribute(VIS, Math.round(ratio * 100) / 100);
        pending.delete(entry.target);
      }
    }, {threshold: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]});
    const seen = new Set();
    const somButtons = [];
    for (const elem of elements) {
      elem.setAttribute(VIS, 0);
      observer.observe(elem);
      try {
        if (typeof elem.value !== 'undefined' && typeof elem.value !== 'object') elem.setAttribute('value', `${elem.value}`);
        if (typeof elem.checked !== 'undefined') {
          if (elem.checked === true) elem.setAttribute('checked', ''); else elem.removeAttribute('checked');
        }
      } catch (e) {}
      let bid = elem.getAttribute(BID);
      if (bid === null || seen.has(bid)) {
        const tag = elem.tagName.toLowerCase();
        const local = (tag === 'iframe' || tag === 'frame') ? win.browsergym_frame_id_generator.next().value
                                                            : `${win.browsergym_elem_counter++}`;
        bid = prefix + local;
        elem.setAttribute(BID, bid);
      }
      seen.add(bid);
      for (const attr of ['aria-roledescription', 'aria-description']) {
        const original = elem.getAttribute(attr);
        elem.setAttribute(attr, `browsergym_id_${bid} ${original === null ? '' : original}`);
      }
      elem.setAttribute(SOM, '0');
      try {
        const rect = elem.getBoundingClientRect();
        const cx = (rect.left + rect.right) / 2, cy = (rect.top + rect.bottom) / 2;
        const hit = deepElementFromPoint(doc, cx, cy);
        if (hit && composedContains(elem, hit)) {
          const tag = elem.tagName.toLowerCase();
          if (SOM_TAGS.includes(tag) || elem.onclick != null || win.getComputedStyle(elem).cursor === 'pointer') {
            const area = (rect.right - rect.left) * (rect.bottom - rect.top);
            if (area >= 20 && !somButtons.some(b => b.contains(elem))) {
              let parent = elem.parentElement;
              if (!(parent && parent.tagName.toLowerCase() === 'span' && parent.children.length === 1 &&
                    parent.getAttribute('role') && parent.getAttribute(SOM) === '1')) {
                elem.setAttribute(SOM, '1');
                if (elem.matches('button, a, input[type="button"], div[role="button"]')) somButtons.push(elem);
                while (parent) {
                  if (parent.getAttribute(SOM) === '1') parent.setAttribute(SOM, '0');
                  parent = parent.parentElement;
                }
              }
            }
          }
        }
      } catch (e) {}
    }
    const start = Date.now();
    while (pending.size > 0 && Date.now() - start < 1000) await new Promise(r => setTimeout(r, 40));
    if (pending.size > 0) warnings.push('Frame marking: not all elements have been visited by the intersection_observer after 1000 ms');
    observer.disconnect();
    for (const elem of elements) {
      const tag = elem.tagName.toLowerCase();
      if (tag !== 'iframe' && tag !== 'frame') continue;
      const sandbox = elem.getAttribute('sandbox');
      if (sandbox !== null && !sandbox.split(/\s+/).includes('allow-scripts')) continue;
      let childDoc = null, childWin = null;
      try { childDoc = elem.contentDocument; childWin = elem.contentWindow; } catch (e) {}
      if (!childDoc || !childWin || !childDoc.documentElement) continue;  // cross-origin or not loaded
      await markFrame(childWin, childDoc, elem.getAttribute(BID));
    }
  }
  await markFrame(window, document, '');
  return warnings;
})())JS";

const char *const kUnmarkElements = R"JS((() => {
  function unmarkDoc(doc) {
    const all = [];
    (function collect(root) {
      for (const el of root.querySelectorAll('*')) { all.push(el); if (el.shadowRoot) collect(el.shadowRoot); }
    })(doc);
    for (const el of all) {
      for (const attr of ['aria-roledescription', 'aria-description']) {
        const v = el.getAttribute(attr);
        if (v === null) continue;
        const stripped = v.replace(/^browsergym_id[^\s]*\s/, '');
        if (stripped === '') el.removeAttribute(attr); else if (stripped !== v) el.setAttribute(attr, stripped);
      }
      const tag = el.tagName.toLowerCase();
      if (tag === 'iframe' || tag === 'frame') {
        let d = null;
        try { d = el.contentDocument; } catch (e) {}
        if (d) unmarkDoc(d);
      }
    }
  }
  unmarkDoc(document);
  return true;
})())JS";

const char *const kFocusedBid = R"JS((() => {
  function active(root) {
    const el = root.activeElement;
    if (!el) return null;
    if (el.shadowRoot) return active(el.shadowRoot);
    return el;
  }
  let doc = document, bid = '';
  for (let depth = 0; depth < 32; depth++) {
    const el = active(doc);
    if (!el) break;
    bid = el.getAttribute('bid');
    const tag = el.tagName.toLowerCase();
    if (tag !== 'iframe' && tag !== 'frame') break;
    let d = null;
    try { d = el.contentDocument; } catch (e) {}
    if (!d) break;
    doc = d;
  }
  return bid;
})())JS";

std::string find_element_expression(const std::string &bid_json) {
    return R"JS((() => {
  const bid = )JS" + bid_json + R"JS(;
  const notFound = () => new Error(`Could not find element with bid "${bid}"`);
  function deepQuery(root, value) {
    const out = [];
    const sel = `[bid="${CSS.escape(value)}"]`;
    (function walk(r) {
      for (const el of r.querySelectorAll(sel)) out.push(el);
      for (const el of r.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
    })(root);
    return out;
  }
  const isNumeric = s => s.length > 0 && /^[0-9]+$/.test(s);
  let doc = document, i = 0;
  while (bid.slice(i) && !isNumeric(bid.slice(i))) {
    i++;
    while (i < bid.length && /[A-Z]/.test(bid[i])) i++;
    const frames = deepQuery(doc, bid.slice(0, i));
    if (frames.length === 0) throw notFound();
    let d = null;
    try { d = frames[0].contentDocument; } catch (e) {}
    if (!d) throw notFound();
    doc = d;
  }
  const found = deepQuery(doc, bid);
  if (found.length === 0) throw notFound();
  if (found.length > 1) throw new Error(`strict mode violation: get_by_test_id("${bid}") resolved to ${found.length} elements`);
  return found[0];
})())JS";
}

const char *const kActionability = R"JS(function(needEnabled) {
  if (!this.isConnected) return {ok: false, reason: 'element is not attached to the DOM'};
  const style = this.ownerDocument.defaultView.getComputedStyle(this);
  const rect = this.getBoundingClientRect();
  if (!(rect.width > 0 && rect.height > 0) || style.visibility !== 'visible') return {ok: false, reason: 'element is not visible'};
  if (needEnabled) {
    const tag = this.tagName.toLowerCase();
    const disabledTags = ['button', 'input', 'select', 'textarea', 'option', 'optgroup'];
    let disabled = disabledTags.includes(tag) && this.disabled;
    if (!disabled) { const fs = this.closest('fieldset[disabled]'); if (fs && disabledTags.includes(tag)) disabled = true; }
    if (!disabled && this.getAttribute('aria-disabled') === 'true') disabled = true;
    if (disabled) return {ok: false, reason: 'element is not enabled'};
  }
  return {ok: true, reason: ''};
})JS";

// Playwright's "stable" check: the box is the same over two consecutive animation frames. A page
// whose frames are throttled (a background tab, or a machine too loaded to draw within 200 ms) falls
// back to a 200 ms comparison so nothing hangs — but without a new frame the animation clock has not
// moved either, so an equal box then proves nothing: the element counts as stable only if neither it
// nor an ancestor has a running animation (CI once clicked a sliding button that way).
const char *const kStableBox = R"JS(function() {
  const el = this;
  const box = () => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].join(','); };
  const animated = () => {
    for (let n = el; n && n.nodeType === 1; n = n.parentNode && n.parentNode.nodeType === 11 ? n.parentNode.host : n.parentNode) {
      if (typeof n.getAnimations === 'function' && n.getAnimations().some(a => a.playState === 'running')) return true;
    }
    return false;
  };
  const first = box();
  return new Promise(resolve => {
    let done = false;
    const finish = framed => { if (!done) { done = true; resolve(box() === first && (framed || !animated())); } };
    requestAnimationFrame(() => requestAnimationFrame(() => finish(true)));
    setTimeout(() => finish(false), 200);
  });
})JS";

const char *const kHitTest = R"JS(function(x, y) {
  function describe(el) {
    let s = '<' + el.tagName.toLowerCase();
    for (const a of ['id', 'class', 'bid']) if (el.getAttribute(a)) s += ` ${a}="${el.getAttribute(a)}"`;
    return s + '>…</' + el.tagName.toLowerCase() + '>';
  }
  let doc = window.top.document, el = null;
  for (let depth = 0; depth < 32; depth++) {
    el = doc.elementFromPoint(x, y);
    while (el && el.shadowRoot) { const inner = el.shadowRoot.elementFromPoint(x, y); if (!inner || inner === el) break; el = inner; }
    if (!el) break;
    const tag = el.tagName.toLowerCase();
    if ((tag === 'iframe' || tag === 'frame') && el !== this) {
      let d = null;
      try { d = el.contentDocument; } catch (e) {}
      if (!d) break;
      const r = el.getBoundingClientRect();
      const st = el.ownerDocument.defaultView.getComputedStyle(el);
      x -= r.left + el.clientLeft + parseFloat(st.paddingLeft || '0');
      y -= r.top + el.clientTop + parseFloat(st.paddingTop || '0');
      doc = d;
      continue;
    }
    break;
  }
  if (!el) return {ok: false, reason: 'element is outside of the viewport'};
  for (let n = el; n; n = n.parentNode || n.host) if (n === this) return {ok: true, reason: ''};
  return {ok: false, reason: describe(el) + ' intercepts pointer events'};
})JS";

const char *const kFillPrepare = R"JS(function(value) {
  let el = this;
  if (el.tagName.toLowerCase() === 'label' && el.control) el = el.control;
  const tag = el.tagName.toLowerCase();
  const setTypes = ['color', 'date', 'time', 'datetime-local', 'month', 'range', 'week'];
  const typeTypes = ['', 'email', 'number', 'password', 'search', 'tel', 'text', 'url'];
  if (tag === 'input') {
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (setTypes.includes(type)) {
      el.value = value;
      if (el.value !== value) return {mode: 'error', message: 'Malformed value'};
      el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
      el.dispatchEvent(new Event('change', {bubbles: true}));
      return {mode: 'set', message: ''};
    }
    if (!typeTypes.includes(type)) return {mode: 'error', message: `Input of type "${type}" cannot be filled`};
    if (type === 'number' && value !== '' && isNaN(Number(value))) return {mode: 'error', message: 'Cannot type text into input[type=number]'};
    if (el.readOnly) return {mode: 'error', message: 'Element is not editable'};
    el.focus();
    el.select();
    return {mode: 'type', message: ''};
  }
  if (tag === 'textarea') {
    if (el.readOnly) return {mode: 'error', message: 'Element is not editable'};
    el.focus();
    el.select();
    return {mode: 'type', message: ''};
  }
  if (el.isContentEditable) {
    el.focus();
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    const sel = el.ownerDocument.defaultView.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    return {mode: 'type', message: ''};
  }
  return {mode: 'error', message: 'Element is not an <input>, <textarea> or [contenteditable] element'};
})JS";

const char *const kSelectOptions = R"JS(function(wanted) {
  let el = this;
  if (el.tagName.toLowerCase() === 'label' && el.control) el = el.control;
  if (el.tagName.toLowerCase() !== 'select') return {ok: false, fatal: true, message: 'Element is not a <select> element'};
  const options = Array.from(el.options);
  const picked = [];
  for (const w of wanted) {
    const match = options.find(o => o.value === w || o.label === w);
    if (!match) return {ok: false, fatal: false, message: 'did not find some options'};
    if (!picked.includes(match)) picked.push(match);
    if (!el.multiple) break;
  }
  for (const o of options) o.selected = picked.includes(o);
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {ok: true, fatal: false, message: ''};
})JS";

const char *const kFocus = R"JS(function() { this.focus(); })JS";

const char *const kDescribe = R"JS(function() {
  return {tag: this.tagName.toLowerCase(), type: (this.getAttribute('type') || '').toLowerCase()};
})JS";

const char *const kDrawSomOverlay = R"JS(function(boxes) {
  const old = document.getElementById('__actionhost_som');
  if (old) old.remove();
  const host = document.createElement('div');
  host.id = '__actionhost_som';
  host.style.cssText = 'all: initial; position: fixed; left: 0; top: 0; width: 0; height: 0; z-index: 2147483647; pointer-events: none;';
  const root = host.attachShadow({mode: 'open'});
  for (const b of boxes) {
    const box = document.createElement('div');
    box.style.cssText = `position: fixed; left: ${b.x}px; top: ${b.y}px; width: ${b.w}px; height: ${b.h}px; box-sizing: border-box; border: 2px dashed black; pointer-events: none;`;
    root.appendChild(box);
    const label = document.createElement('div');
    label.textContent = b.bid;
    label.style.cssText = `position: fixed; left: ${Math.round(b.x)}px; top: ${Math.round(b.y - 9 + 4)}px; background: black; color: white; font: 12px/12px sans-serif; padding: 3px; outline: 1px solid white; white-space: nowrap; pointer-events: none;`;
    root.appendChild(label);
  }
  (document.documentElement || document).appendChild(host);
  return boxes.length;
})JS";

const char *const kRemoveSomOverlay = R"JS((() => { const o = document.getElementById('__actionhost_som'); if (o) o.remove(); return true; })())JS";

}  // namespace actionhost::browser::scripts
