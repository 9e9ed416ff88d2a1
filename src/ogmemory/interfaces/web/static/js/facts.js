// Facts: the relations distilled from memory (read-only), current or as of a date, with their
// history as validity intervals on one time axis, and the provenance of each.

import { api } from "./api.js";
import {
  badge, distinct, empty, endOfDay, fmtDate, h, latest, mount, paged, provenance, select, STALE,
} from "./ui.js";

const filters = { entity: "", relation: "", at: "", history: false, scope: "" };
const fresh = latest();

export async function render(container, { params }) {
  if (params.get("entity")) filters.entity = params.get("entity");
  const entities = await api("/v1/entities");
  const names = new Map(entities.map((e) => [e.id, e.name]));
  const results = h("div", { id: "facts-results" });
  const load = async () => {
    mount(results, h("p", { class: "muted" }, "Loading…"));
    const facts = await fresh(api("/v1/facts", { query: {
      entity: filters.entity || undefined, relation: filters.relation || undefined,
      at: filters.at ? endOfDay(filters.at) : undefined, history: filters.history,
      scope: filters.scope || undefined } }));
    if (facts !== STALE) drawFacts(results, facts, names);
  };
  const onError = (err) => mount(results, h("div", { class: "error-box" }, err.message));
  const change = (key) => (e) => {
    filters[key] = e.target.type === "checkbox" ? e.target.checked : e.target.value;
    load().catch(onError);
  };
  const entityList = h("datalist", { id: "facts-entities" },
    entities.map((e) => h("option", { value: e.id }, e.name)));
  mount(container,
    h("div", { class: "toolbar" }, h("div", { class: "filters" },
      h("input", { id: "facts-entity", list: "facts-entities", placeholder: "Entity (any)",
        value: filters.entity, "aria-label": "Entity", onchange: change("entity") }),
      entityList,
      h("input", { id: "facts-relation", placeholder: "Relation (any)", value: filters.relation,
        "aria-label": "Relation", onchange: change("relation") }),
      h("label", { title: "What held at the end of that day (UTC)" }, "As of ",
        h("input", { type: "date", id: "facts-at", value: filters.at, onchange: change("at") })),
      h("label", {}, h("input", { type: "checkbox", id: "facts-history",
        checked: filters.history, onchange: change("history") }), " history"),
      select({ id: "facts-scope", "aria-label": "Scope", onchange: change("scope") },
        [{ value: "", label: "Scope: all" }, ...distinct(entities, "scope")], filters.scope))),
    h("p", { class: "muted help" }, "A fact holds from its start until it is ended or " +
      "superseded; nothing is deleted. “As of” shows what held then; “history” shows every " +
      "version."),
    results);
  await load();
}

function drawFacts(results, facts, names) {
  if (!facts.length) {
    mount(results, empty(filters.at ? `No fact held on ${filters.at}.` : "No facts."));
    return;
  }
  const now = Date.now() / 1000;
  const start = Math.min(...facts.map((f) => f.valid_from));
  const end = Math.max(now, ...facts.map((f) => f.valid_to || now));
  const span = Math.max(end - start, 1);
  const name = (id) => names.get(id) || id;
  const tbody = h("tbody", {});
  const table = h("table", { class: "facts" },
    h("thead", {}, h("tr", {}, h("th", {}, "Fact"), h("th", {}, "Relation"),
      h("th", {}, "Valid"), h("th", { class: "axis-head" },
        h("span", {}, fmtDate(start)), h("span", {}, fmtDate(end))), h("th", {}, "Provenance"))),
    tbody);
  mount(results,
    h("p", { class: "count", id: "facts-count" }, `${facts.length} fact${facts.length > 1 ? "s" : ""}` +
      (filters.at ? ` held at the end of ${filters.at}` : filters.history ? " (every version)"
        : " hold now")),
    table);
  paged(tbody, facts, (f) => {
    const left = ((f.valid_from - start) / span) * 100;
    const width = Math.max((((f.valid_to || end) - f.valid_from) / span) * 100, 0.8);
    const bar = h("div", { class: `bar${f.valid_to ? " ended" : ""}` });
    bar.style.left = `${left}%`;
    bar.style.width = `${width}%`;
    const state = f.superseded_by ? badge("superseded", "off")
      : f.valid_to ? badge("ended", "off") : badge("holds", "ok");
    return h("tr", { dataset: { factId: f.id } },
      h("td", { lang: f.language === "zh" ? "zh" : null }, f.fact, " ", state),
      h("td", {}, h("a", { href: `#/graph?entity=${encodeURIComponent(f.from)}` }, name(f.from)),
        h("span", { class: "rel" }, ` —${f.relation}→ `),
        h("a", { href: `#/graph?entity=${encodeURIComponent(f.to)}` }, name(f.to))),
      h("td", { class: "nowrap" },
        `${fmtDate(f.valid_from)} → ${f.valid_to ? fmtDate(f.valid_to) : "now"}`),
      h("td", { class: "axis", title: "Validity on the time axis" }, bar),
      h("td", {}, provenance(f.provenance),
        f.support.length ? h("div", { class: "support" }, "from ",
          f.support.map((id) => h("a", { href: `#/memories/${encodeURIComponent(id)}` }, id)))
          : null));
  }, { after: table });
}
