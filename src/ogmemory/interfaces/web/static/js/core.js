// Core & recall: core.md exactly as the model sees it, and a recall box that shows what would
// be injected for a query, item by item, with its tokens and why it was chosen.

import { api } from "./api.js";
import {
  badge, empty, errorBox, fmtDate, h, mount, sessionHref, select, shortSha,
} from "./ui.js";

const CORE_LIMIT = 2048;
// Index document kinds (the prefix of a doc id), as the rest of the page names them.
const DOC_KINDS = { edge: "fact", turn: "turn", memory: "memory", event: "event",
  entity: "entity", session: "session summary" };
const recallState = { query: "", budget: 2000, recipe: "default" };

export async function render(container) {
  const coreBox = h("div", { id: "core-box" });
  const result = h("div", { id: "recall-result" });
  const query = h("textarea", { id: "recall-query", rows: 2, required: true,
    placeholder: "A question or the user's message, e.g. “Which database does billing use?”" });
  query.value = recallState.query;
  const budget = h("input", { type: "number", id: "recall-budget", min: 50, max: 100000,
    step: 50, value: recallState.budget, "aria-label": "Token budget" });
  const recipe = select({ id: "recall-recipe", "aria-label": "Recipe" }, [
    { value: "default", label: "default (hybrid, graph expansion)" },
    { value: "fulltext", label: "fulltext (no vectors)" },
    { value: "flat", label: "flat (no expansion)" }], recallState.recipe);
  const form = h("form", { class: "card form", id: "recall-form", onsubmit: async (e) => {
    e.preventDefault();
    Object.assign(recallState, { query: query.value, budget: Number(budget.value),
      recipe: recipe.value });
    mount(result, h("p", { class: "muted" }, "Recalling…"));
    try {
      const res = await api("/v1/recall", { method: "POST", body: {
        query: recallState.query, budget: recallState.budget, recipe: recallState.recipe } });
      drawRecall(result, res);
    } catch (err) {
      mount(result, errorBox(err));
    }
  } },
  h("label", {}, "Recall for", query),
  h("div", { class: "row" }, h("label", {}, "Budget (tokens) ", budget),
    h("label", {}, "Recipe ", recipe),
    h("button", { type: "submit", class: "primary", id: "recall-run" }, "Recall")));
  mount(container, h("div", { class: "two-col" },
    h("section", {}, h("h2", {}, "core.md"),
      h("p", { class: "muted help" }, "Injected into every prompt: at most 2 KB, every line " +
        "with a ↪ pointer to its evidence."),
      coreBox),
    h("section", {}, h("h2", {}, "Recall"),
      h("p", { class: "muted help" }, "What would be injected for a query: at most 30 " +
        "candidates, 1-hop expansion, rerank by relevance × recency × importance, then at most " +
        "20 items within the budget."),
      form, result)));
  await drawCore(coreBox, false);
}

async function drawCore(box, regenerate) {
  const core = await api("/v1/core", { query: { regenerate } });
  mount(box,
    h("div", { class: "core-meta" }, h("span", { id: "core-bytes" },
      `${core.bytes} / ${CORE_LIMIT} bytes`),
    h("button", { type: "button", id: "core-regenerate", onclick: () =>
      drawCore(box, true).catch((err) => box.append(errorBox(err))) }, "Regenerate now")),
    h("pre", { class: "core", id: "core-text" }, pointerLinks(core.text)));
}

/** The text with its ↪ pointers (session:<id>@<sha>, memory:<id>) as links. */
function pointerLinks(text) {
  const parts = [];
  const re = /↪ (session|memory):([A-Za-z0-9._-]+)(@[0-9a-f]+)?/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    parts.push(text.slice(last, m.index));
    const href = m[1] === "session" ? sessionHref(m[2]) : `#/memories/${encodeURIComponent(m[2])}`;
    parts.push(h("a", { href }, m[0]));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

function reasons(item, rank) {
  const sources = item.doc_ids.map((id) => DOC_KINDS[id.split(":")[0]] || id.split(":")[0]);
  const counts = {};
  for (const s of sources) counts[s] = (counts[s] || 0) + 1;
  const from = Object.entries(counts).map(([k, n]) => `${n} ${k}${n > 1 ? "s" : ""}`).join(", ");
  return [`#${rank} by score ${item.score.toFixed(3)} (relevance × recency × importance)`,
    from ? `built from ${from}` : null,
    item.cites.length ? `cites ${item.cites.length} turn${item.cites.length > 1 ? "s" : ""}`
      : null,
    item.event_time ? `dated ${fmtDate(item.event_time)}` : null].filter(Boolean);
}

function drawRecall(result, res) {
  const stats = res.stats || {};
  const statText = ["candidates", "expanded", "fts", "dense", "routes", "latency_ms"]
    .filter((k) => k in stats).map((k) => `${k.replace("_ms", " ms")}: ${stats[k]}`).join(" · ");
  const context = res.items.map((i) => `${i.text}  ${i.pointer}`.trimEnd()).join("\n");
  mount(result,
    h("p", { class: "count", id: "recall-summary", dataset: { items: String(res.items.length),
      tokens: String(res.tokens) } },
    `${res.items.length} items · ${res.tokens} / ${res.budget} tokens`,
    res.fallback ? badge(`fallback: ${res.reason || "latest items"}`, "off") : null),
    statText ? h("p", { class: "muted" }, statText) : null,
    res.items.length ? h("ol", { class: "recall-items" }, res.items.map((item, i) =>
      h("li", { class: "recall-item", dataset: { kind: item.kind, tokens: String(item.tokens) } },
        h("div", { class: "item-head" }, badge(item.kind, "kind"),
          badge(`${item.tokens} tokens`, "tokens"),
          item.session_id ? h("a", { href: sessionHref(item.session_id, item.cites) },
            `session ${item.session_id}`) : null,
          item.commit ? h("code", { class: "muted" }, ` ${shortSha(item.commit)}`) : null),
        h("pre", { class: "item-text" }, item.text),
        h("ul", { class: "reasons" }, reasons(item, i + 1).map((r) => h("li", {}, r))))))
      : empty("Nothing to recall for this query."),
    res.items.length ? h("details", {}, h("summary", {}, "The injected text, exactly"),
      h("pre", { class: "core", id: "recall-context" }, context)) : null);
}
