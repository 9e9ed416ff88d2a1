// Memories: the user-controlled memory list (seed 003): search and filter; create, edit,
// enable, disable, delete; each memory's versions and frozen evidence, linked to its turns.

import { api, ApiError, path } from "./api.js";
import {
  badge, confirmDialog, distinct, empty, errorBox, fmtTime, h, mount, notice, paged, provenance,
  select,
} from "./ui.js";

const filters = { q: "", type: "", scope: "", enabled: "", source: "" };
let related = new Set(); // ids the server's search found for filters.q (Enter)
let items = [];
let types = [];
const open = new Set(); // ids whose details are shown

export async function render(container, { rest }) {
  const target = rest[0];
  [items, types] = await Promise.all([api("/v1/memories"), api("/v1/memory-types")]);
  items = newestFirst(items);
  const index = target ? items.findIndex((m) => m.id === target) : -1;
  if (index >= 0) {
    // A link to one memory: show it first, with its details, whatever the filters were.
    items.unshift(items.splice(index, 1)[0]);
    Object.keys(filters).forEach((k) => { filters[k] = ""; });
    related = new Set();
    open.add(target);
  }
  const list = h("div", { class: "memory-list", id: "memory-list" });
  const form = h("div", { id: "memory-new" });
  mount(container,
    h("div", { class: "toolbar" }, toolbar(list), h("button", {
      type: "button", class: "primary", id: "new-memory",
      onclick: () => mount(form, createForm(form, list)),
    }, "New memory")),
    form, list);
  draw(list);
  if (target && index < 0) {
    list.prepend(errorBox(new ApiError(404, "Not found", `memory not found: ${target}`)));
  }
}

function toolbar(list) {
  const redraw = () => draw(list);
  const search = h("input", {
    type: "search", id: "memory-search", placeholder: "Search (Enter: related ones too)",
    value: filters.q, "aria-label": "Search memories",
    oninput: (e) => { filters.q = e.target.value; related = new Set(); redraw(); },
    onkeydown: async (e) => {
      if (e.key !== "Enter" || !filters.q.trim()) return;
      try {
        const hits = await api("/v1/search", { query: { q: filters.q, kind: "memory", limit: 50 } });
        related = new Set(hits.map((hit) => hit.id.split(":")[1]));
        redraw();
      } catch (err) {
        notice(`Search failed: ${err.message}`, "error");
      }
    },
  });
  const choose = (key, label, options) => select(
    { id: `memory-filter-${key}`, "aria-label": label,
      onchange: (e) => { filters[key] = e.target.value; redraw(); } },
    [{ value: "", label: `${label}: all` }, ...options], filters[key]);
  const typeNames = [...new Set([...types.map((t) => t.name), ...distinct(items, "type")])].sort();
  return h("div", { class: "filters" }, search,
    choose("type", "Type", typeNames),
    choose("scope", "Scope", distinct(items, "scope")),
    choose("enabled", "State", [{ value: "enabled", label: "enabled" },
      { value: "disabled", label: "disabled" }]),
    choose("source", "Source", [{ value: "user", label: "added by hand" },
      { value: "distilled", label: "distilled" }]));
}

function newestFirst(list) {
  return list.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
}

function matches(m) {
  const q = filters.q.trim().toLowerCase();
  if (q && !m.text.toLowerCase().includes(q) && !m.id.includes(q) && !related.has(m.id)) {
    return false;
  }
  if (filters.type && m.type !== filters.type) return false;
  if (filters.scope && m.scope !== filters.scope) return false;
  if (filters.enabled && (filters.enabled === "enabled") !== m.enabled) return false;
  return !filters.source || m.source === filters.source;
}

function draw(list) {
  const shown = items.filter(matches);
  list.parentElement?.querySelectorAll(":scope > button.more").forEach((b) => b.remove());
  const cards = h("div", { class: "cards" });
  mount(list,
    h("p", { class: "count", id: "memory-count" },
      `${shown.length} of ${items.length} memories, newest first`),
    shown.length ? cards : empty(items.length ? "No memory matches these filters."
      : "Nothing remembered yet. Add a memory, or let distillation find some."));
  if (shown.length) paged(cards, shown, (m) => card(m, list), { after: list });
}

async function reload(list, highlight) {
  items = newestFirst(await api("/v1/memories"));
  draw(list);
  if (highlight) {
    const el = list.querySelector(`[data-memory-id="${CSS.escape(highlight)}"]`);
    if (el) { el.classList.add("flash"); el.scrollIntoView({ block: "nearest" }); }
  }
}

function card(m, list) {
  const details = h("div", { class: "details" });
  const body = h("div", { class: "memory-text", lang: m.language === "zh" ? "zh" : null },
    m.text);
  const el = h("article", {
    class: `memory${m.enabled ? "" : " disabled"}${related.has(m.id) ? " related" : ""}`,
    dataset: { memoryId: m.id, enabled: String(m.enabled), version: String(m.version) },
  },
  body,
  h("div", { class: "meta" },
    badge(m.type, "type"), badge(m.scope, "scope"),
    badge(m.source === "user" ? "added by hand" : "distilled", m.source),
    m.enabled ? null : badge("disabled", "off"),
    related.has(m.id) ? badge("related", "related") : null,
    h("span", { class: "muted" }, `v${m.version} · ${fmtTime(m.updated_at)} · `),
    h("code", { class: "muted" }, m.id)),
  h("div", { class: "actions" },
    h("button", { type: "button", dataset: { action: "edit" },
      onclick: () => editForm(el, body, m, list) }, "Edit"),
    h("button", { type: "button", dataset: { action: m.enabled ? "disable" : "enable" },
      onclick: () => toggle(m, list) }, m.enabled ? "Disable" : "Enable"),
    h("button", { type: "button", class: "danger", dataset: { action: "delete" },
      onclick: () => remove(m, list) }, "Delete"),
    h("button", { type: "button", class: "link", dataset: { action: "details" },
      onclick: () => toggleDetails(m, details) }, "Versions & evidence")),
  details);
  if (open.has(m.id)) showDetails(m, details);
  return el;
}

function createForm(form, list) {
  const text = h("textarea", { id: "new-memory-text", rows: 3, required: true,
    placeholder: "What should be remembered, e.g. “I prefer Python over Java.”" });
  const type = select({ id: "new-memory-type", "aria-label": "Type" },
    types.map((t) => ({ value: t.name, label: `${t.name} — ${t.description}` })), "profile");
  const scope = h("input", { id: "new-memory-scope", value: "global", "aria-label": "Scope",
    title: "global, project:<id> or agent:<id>" });
  const error = h("div", { class: "form-error" });
  return h("form", {
    class: "card form", onsubmit: async (e) => {
      e.preventDefault();
      try {
        const created = await api("/v1/memories", { method: "POST",
          body: { text: text.value, type: type.value, scope: scope.value.trim() } });
        mount(form);
        notice(`Remembered (${created.id}).`, "ok");
        await reload(list, created.id);
      } catch (err) {
        mount(error, errorBox(err));
      }
    },
  },
  h("label", {}, "Text", text),
  h("div", { class: "row" }, h("label", {}, "Type ", type), h("label", {}, "Scope ", scope)),
  error,
  h("div", { class: "actions" },
    h("button", { type: "submit", class: "primary", id: "new-memory-save" }, "Remember"),
    h("button", { type: "button", onclick: () => mount(form) }, "Cancel")));
}

function editForm(el, body, m, list) {
  if (el.querySelector("form.edit")) return;
  let expected = m.version;
  const text = h("textarea", { class: "edit-text", rows: 3 });
  text.value = m.text;
  const conflict = h("div", { class: "conflict-slot" });
  const form = h("form", {
    class: "edit", onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api(path`/v1/memories/${m.id}`, { method: "PATCH",
          body: { text: text.value, expected_version: expected } });
        notice("Saved a new version.", "ok");
        await reload(list, m.id);
      } catch (err) {
        if (err.status !== 409) { mount(conflict, errorBox(err)); return; }
        const latest = await api(path`/v1/memories/${m.id}`).catch(() => null);
        mount(conflict, h("div", { class: "conflict", role: "alert", dataset: { conflict: "1" } },
          h("strong", {}, "Conflict: "),
          `this memory changed since you opened it (you edited version ${expected}` +
          `${latest ? `; it is now version ${latest.version}` : ""}). Nothing was saved.`,
          latest ? h("blockquote", {}, latest.text) : null,
          h("div", { class: "actions" },
            latest ? h("button", { type: "button", dataset: { action: "overwrite" },
              onclick: () => { expected = latest.version; form.requestSubmit(); },
            }, "Save my text over it") : null,
            h("button", { type: "button", onclick: () => reload(list, m.id) },
              "Discard my edit"))));
      }
    },
  }, text, conflict, h("div", { class: "actions" },
    h("button", { type: "submit", class: "primary", dataset: { action: "save" } }, "Save"),
    h("button", { type: "button", onclick: () => form.replaceWith(body) }, "Cancel")));
  body.replaceWith(form);
  text.focus();
}

async function toggle(m, list) {
  const action = m.enabled ? "disable" : "enable";
  try {
    await api(path`/v1/memories/${m.id}/${action}`, { method: "POST" });
    notice(m.enabled ? "Disabled: it and what was derived only from it are hidden everywhere."
      : "Enabled again.", "ok");
    await reload(list, m.id);
  } catch (err) {
    notice(`Could not ${action}: ${err.message}`, "error");
  }
}

async function remove(m, list) {
  const ok = await confirmDialog("Delete this memory?",
    `“${m.text}” leaves the list, and what was derived only from it disappears from every ` +
    "read. Its versions and evidence stay in the log; the Batches tab can roll the deletion back.",
    "Delete");
  if (!ok) return;
  try {
    await api(path`/v1/memories/${m.id}`, { method: "DELETE" });
    open.delete(m.id);
    notice("Deleted.", "ok");
    await reload(list);
  } catch (err) {
    notice(`Could not delete: ${err.message}`, "error");
  }
}

function toggleDetails(m, details) {
  if (open.has(m.id)) {
    open.delete(m.id);
    mount(details);
  } else {
    open.add(m.id);
    showDetails(m, details);
  }
}

async function showDetails(m, details) {
  mount(details, h("p", { class: "muted" }, "Loading…"));
  try {
    const [versions, evidence] = await Promise.all([
      api(path`/v1/memories/${m.id}/versions`), api(path`/v1/memories/${m.id}/evidence`)]);
    mount(details,
      h("h4", {}, "Versions"), h("ol", { class: "versions" }, versions.map(versionItem)),
      h("h4", {}, "Evidence"),
      evidence.length ? h("ul", { class: "evidence" }, evidence.map((e) =>
        h("li", { dataset: { evidenceId: e.id } },
          h("blockquote", {}, e.quote),
          e.provenance ? provenance(e.provenance)
            : h("span", { class: "muted" }, "added by hand, not said in a conversation"),
          h("span", { class: "muted" }, ` · frozen ${fmtTime(e.created_at)}`))))
        : empty("No evidence snapshot."));
  } catch (err) {
    mount(details, errorBox(err));
  }
}

function versionItem(v) {
  const before = v.before || {};
  const after = v.after || {};
  const changes = !v.before ? [] : v.changed.filter((f) => f !== "text").map((f) =>
    h("span", { class: "change" }, `${f}: ${JSON.stringify(before[f])} → ${JSON.stringify(after[f])}`));
  return h("li", { class: "version", dataset: { batch: v.batch_id } },
    h("div", {},
      h("strong", {}, v.version === null ? "removed" : `v${v.version}`),
      ` · ${fmtTime(v.time)} · ${v.reason}`,
      v.rollback_of ? badge(`rolled back ${v.rollback_of}`, "rollback") : null,
      v.rolled_back_by ? badge(`undone by ${v.rolled_back_by}`, "off") : null),
    v.changed.includes("text") && v.before
      ? h("div", { class: "diff" }, h("del", {}, before.text), h("ins", {}, after.text))
      : (v.before ? null : h("div", { class: "diff" }, h("ins", {}, after.text || ""))),
    changes.length ? h("div", { class: "changes" }, changes) : null);
}
