// Batches: the operation log. Every change to memory (distillation, edits, rollbacks) is a batch
// with the before/after of each record; a batch can be rolled back atomically.

import { api, path } from "./api.js";
import {
  badge, confirmDialog, empty, errorBox, fmtTime, h, mount, notice, paged, plural,
} from "./ui.js";

const PAGE = 200;
const HIDDEN = new Set(["_batch", "_kind", "updated_at"]);

export async function render(container, { rest }) {
  const batches = (await api("/v1/batches")).reverse();
  const list = h("div", { id: "batch-list" });
  mount(container,
    h("p", { class: "muted help" }, "Newest first. Rolling a batch back appends a new batch " +
      "that restores every record it changed (history is kept); it is refused when a later " +
      "batch changed the same records, unless forced."),
    h("p", { class: "count" }, plural(batches.length, "batch", "batches")),
    list);
  if (!batches.length) {
    mount(list, empty("The operation log is empty."));
    return;
  }
  const target = rest[0] ? batches.findIndex((b) => b.id === rest[0]) : -1;
  if (target > 0) batches.unshift(batches.splice(target, 1)[0]); // a link to one: show it first
  paged(list, batches, (b) => row(b, rest[0] === b.id));
  if (rest[0]) {
    const el = list.querySelector(`[data-batch-id="${CSS.escape(rest[0])}"]`);
    if (el) el.scrollIntoView({ block: "center" });
  }
}

function row(b, expanded) {
  const body = h("div", { class: "batch-body" });
  const kinds = Object.entries(b.by_kind || {}).map(([k, n]) => badge(`${n} ${k}`, "kind"));
  const isRollback = Boolean(b.rollback_of);
  const el = h("article", { class: `batch${b.rolled_back_by ? " undone" : ""}`,
    dataset: { batchId: b.id, rolledBack: b.rolled_back_by ? "1" : "" } },
  h("div", { class: "batch-head" },
    h("button", { type: "button", class: "link", dataset: { action: "changes" },
      onclick: () => toggle(b, body) }, h("strong", {}, b.reason)),
    h("span", { class: "muted" }, ` ${fmtTime(b.time)} · ${plural(b.ops, "change")} `), kinds,
    b.rolled_back_by ? badge(`rolled back by ${b.rolled_back_by}`, "off") : null,
    isRollback ? badge(`rollback of ${b.rollback_of}`, "rollback") : null,
    h("code", { class: "muted" }, ` ${b.id}`),
    !b.rolled_back_by && !isRollback ? h("button", { type: "button", class: "danger",
      dataset: { action: "rollback" }, onclick: () => rollback(b, el, false) }, "Roll back")
      : null),
  body);
  if (expanded) toggle(b, body);
  return el;
}

async function toggle(b, body, offset = 0) {
  if (body.childElementCount && offset === 0) {
    mount(body);
    return;
  }
  mount(body, h("p", { class: "muted" }, "Loading…"));
  try {
    const data = await api(path`/v1/batches/${b.id}/changes`, { query: { offset, limit: PAGE } });
    const more = data.offset + data.changes.length < data.total;
    mount(body, h("table", { class: "changes-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Record"), h("th", {}, "Before"),
        h("th", {}, "After"))),
      h("tbody", {}, data.changes.map(change))),
    h("p", { class: "muted" }, `changes ${data.offset + 1}–${data.offset + data.changes.length} ` +
      `of ${data.total}`),
    more ? h("button", { type: "button", onclick: () => toggle(b, body, offset + PAGE) },
      "Next changes") : null);
  } catch (err) {
    mount(body, errorBox(err));
  }
}

function label(rec) {
  if (!rec) return "";
  return rec.text || rec.fact || rec.summary || rec.name || rec.quote || "";
}

function change(c) {
  const before = c.before || {};
  const after = c.after || {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => !HIDDEN.has(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .sort();
  const cell = (rec, side) => {
    if (!rec) return h("td", { class: "none" }, side === "before" ? "(created)" : "(removed)");
    return h("td", {}, h("div", { class: "label" }, label(rec)),
      h("dl", {}, keys.filter((k) => k in rec && k !== "text").map((k) => [
        h("dt", {}, k), h("dd", {}, h("code", {}, JSON.stringify(rec[k])))])));
  };
  return h("tr", { dataset: { kind: c.kind, id: c.id } },
    h("td", {}, badge(c.kind, "kind"), h("code", {}, c.id)),
    cell(c.before, "before"), cell(c.after, "after"));
}

async function rollback(b, el, force) {
  const ok = await confirmDialog(force ? "Force the rollback?" : "Roll this batch back?",
    force ? "Later batches changed some of the same records; forcing restores this batch's " +
      "before-states anyway, and those later changes to them are lost."
      : `Every record “${b.reason}” changed (${b.ops}) goes back to its state before it. ` +
      "This is itself a new batch and can be inspected afterwards.",
    force ? "Force rollback" : "Roll back");
  if (!ok) return;
  try {
    const undo = await api(path`/v1/batches/${b.id}/rollback`, { method: "POST",
      body: { force } });
    notice(`Rolled back: batch ${undo.id} restored ${undo.ops} records.`, "ok");
    const fresh = (await api("/v1/batches")).find((x) => x.id === b.id) || b;
    el.replaceWith(row(fresh, false));
    const list = document.getElementById("batch-list");
    if (list && !list.querySelector(`[data-batch-id="${CSS.escape(undo.id)}"]`)) {
      list.prepend(row(undo, false));
    }
  } catch (err) {
    if (err.status === 409 && !force && !/already/.test(err.message)) {
      el.append(errorBox(err, h("button", { type: "button", class: "danger",
        dataset: { action: "force" }, onclick: () => rollback(b, el, true) }, "Force…")));
    } else {
      el.append(errorBox(err));
    }
  }
}
