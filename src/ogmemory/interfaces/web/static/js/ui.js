// DOM helpers. Every text from the server goes through textContent (never innerHTML): memory
// text, quotes and titles are user and model content, and must never run as markup.

/** Create an element: h("a", {href: "#/x", class: "c", onclick: fn}, "text", child...). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") el.className = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "value") el.value = value;
    else if (name === "checked" || name === "disabled" || name === "selected") el[name] = true;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace the content of `el`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const pad = (n) => String(n).padStart(2, "0");

/** Epoch seconds as a UTC date, YYYY-MM-DD (the server reads dates as UTC too). */
export function fmtDate(t) {
  if (t === null || t === undefined) return "";
  const d = new Date(t * 1000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** Epoch seconds as YYYY-MM-DD HH:MM (UTC). */
export function fmtTime(t) {
  if (t === null || t === undefined) return "";
  const d = new Date(t * 1000);
  return `${fmtDate(t)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** A date input's value (YYYY-MM-DD) as the end of that day, for "as of" questions. */
export function endOfDay(value) {
  return value ? `${value}T23:59:59Z` : undefined;
}

/** "1 turn", "2 turns"; "1 batch", "2 batches" with `many`. */
export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}

export function shortSha(sha) {
  return sha ? sha.slice(0, 7) : "";
}

let noticeTimer = null;

/** A message at the top of the page; kind: "info" | "ok" | "error". */
export function notice(message, kind = "info") {
  const el = document.getElementById("notice");
  el.className = `notice ${kind}`;
  el.textContent = message;
  el.hidden = false;
  clearTimeout(noticeTimer);
  if (kind !== "error") noticeTimer = setTimeout(() => { el.hidden = true; }, 5000);
}

export function clearNotice() {
  document.getElementById("notice").hidden = true;
}

/** A modal question; resolves true when confirmed. */
export function confirmDialog(title, text, okLabel = "OK") {
  const dialog = document.getElementById("confirm-dialog");
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-ok").textContent = okLabel;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
  });
}

/** An error as a block in the page (status and the server's detail). */
export function errorBox(err, extra) {
  const status = err && err.status ? `${err.status} ${err.title}` : "Error";
  return h("div", { class: "error-box", role: "alert" },
    h("strong", {}, status), h("span", {}, `: ${err && err.message ? err.message : err}`),
    extra || null);
}

export function empty(text) {
  return h("p", { class: "empty" }, text);
}

export function badge(text, kind) {
  return h("span", { class: `badge ${kind || ""}`.trim() }, text);
}

/** Link to a session's conversation, at given DAG nodes. */
export function sessionHref(sessionId, nodeIds) {
  const node = nodeIds && nodeIds.length ? `?node=${encodeURIComponent(nodeIds.join(","))}` : "";
  return `#/sessions/${encodeURIComponent(sessionId)}${node}`;
}

/** Provenance as links: the session and the exact turns, the commit, when it was said. */
export function provenance(prov) {
  if (!prov) return h("span", { class: "muted" }, "no provenance");
  const parts = [];
  if (prov.session_id) {
    const nodes = prov.node_ids || [];
    parts.push(h("a", { href: sessionHref(prov.session_id, nodes), class: "prov-link",
      title: "Open the exact turns in their session" },
    `session ${prov.session_id}`, nodes.length ? ` · ${nodes.length} turn${nodes.length > 1 ? "s" : ""}` : ""));
  } else if (prov.node_ids && prov.node_ids.length) {
    parts.push(h("span", {}, `written by hand (${prov.node_ids[0]})`));
  }
  if (prov.commit) parts.push(h("code", { title: prov.commit }, shortSha(prov.commit)));
  if (prov.event_time) parts.push(h("span", { class: "muted" }, fmtTime(prov.event_time)));
  return h("span", { class: "prov" }, parts);
}

/** A <select> with options [{value, label}] or strings. */
export function select(attrs, options, current) {
  return h("select", attrs, options.map((o) => {
    const value = typeof o === "string" ? o : o.value;
    const label = typeof o === "string" ? o : o.label;
    return h("option", { value, selected: value === current }, label);
  }));
}

/** Distinct sorted values of `key` over `items`. */
export function distinct(items, key) {
  return [...new Set(items.map((i) => i[key]).filter((v) => v !== null && v !== undefined))]
    .sort();
}

/** Run `fn` at most once per `ms` of quiet. */
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** Render a small, safe subset of markdown (headings, list items, code spans) as elements. */
export function markdown(text) {
  const out = h("div", { class: "md" });
  let list = null;
  for (const line of text.split("\n")) {
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    if (heading) {
      list = null;
      out.append(h(`h${heading[1].length + 2}`, {}, inline(heading[2])));
    } else if (line.startsWith("- ")) {
      if (!list) out.append((list = h("ul", {})));
      list.append(h("li", {}, inline(line.slice(2))));
    } else if (line.trim()) {
      list = null;
      out.append(h("p", {}, inline(line)));
    }
  }
  return out;
}

function inline(text) {
  return text.split(/(`[^`]*`)/).map((part) =>
    part.startsWith("`") && part.endsWith("`") && part.length > 1
      ? h("code", {}, part.slice(1, -1)) : part);
}

/**
 * Append `items` to `list` a page at a time: the first `size` now, the rest behind a
 * "Show more" button placed after `after` (default: the list itself). Long lists (thousands of
 * memories or facts) stay quick to open.
 */
export function paged(list, items, renderItem, { size = 100, after = list } = {}) {
  let shown = 0;
  const more = h("button", { type: "button", class: "more", dataset: { action: "more" } });
  const step = () => {
    const next = items.slice(shown, shown + size);
    list.append(...next.map(renderItem));
    shown += next.length;
    const left = items.length - shown;
    more.hidden = left <= 0;
    more.textContent = `Show ${Math.min(size, left)} more (${left} not shown)`;
  };
  more.addEventListener("click", step);
  after.after(more);
  step();
  return more;
}

/**
 * Keep only the newest of overlapping requests: `const fresh = latest(); ...
 * const data = await fresh(api(...)); if (data === STALE) return;`. A slow answer to an older
 * question (a slider dragged on, a filter changed again) must never overwrite a newer one.
 */
export const STALE = Symbol("stale");

export function latest() {
  let current = 0;
  return async (promise) => {
    const ticket = ++current;
    const value = await promise;
    return ticket === current ? value : STALE;
  };
}
