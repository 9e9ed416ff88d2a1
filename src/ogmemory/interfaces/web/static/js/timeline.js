// Timeline: events (work, decisions, learnings, events) by month, filtered by kind and entity,
// each linked to the turns it rests on.

import { api } from "./api.js";
import {
  badge, empty, fmtTime, h, latest, mount, paged, plural, provenance, select, STALE,
} from "./ui.js";

const KINDS = ["work", "decision", "learning", "event"];
const filters = { kind: "", entity: "", since: "", until: "", superseded: false };
const fresh = latest();

export async function render(container, { params }) {
  if (params.has("entity")) filters.entity = params.get("entity");
  const entities = await api("/v1/entities");
  const names = new Map(entities.map((e) => [e.id, e.name]));
  const results = h("div", { id: "timeline-results" });
  const load = async () => {
    mount(results, h("p", { class: "muted" }, "Loading…"));
    try {
      const events = await fresh(api("/v1/timeline", { query: {
        kind: filters.kind || undefined, entity: filters.entity || undefined,
        since: filters.since || undefined, until: filters.until || undefined,
        include_superseded: filters.superseded } }));
      if (events !== STALE) draw(results, events, names);
    } catch (err) {
      mount(results, h("div", { class: "error-box" }, err.message));
    }
  };
  const change = (key) => (e) => {
    filters[key] = e.target.type === "checkbox" ? e.target.checked : e.target.value;
    load();
  };
  mount(container,
    h("div", { class: "toolbar" }, h("div", { class: "filters" },
      select({ id: "timeline-kind", "aria-label": "Kind", onchange: change("kind") },
        [{ value: "", label: "Kind: all" }, ...KINDS], filters.kind),
      h("input", { id: "timeline-entity", list: "timeline-entities", placeholder: "Entity (any)",
        value: filters.entity, "aria-label": "Entity", onchange: change("entity") }),
      h("datalist", { id: "timeline-entities" },
        entities.map((e) => h("option", { value: e.id }, e.name))),
      h("label", {}, "From ", h("input", { type: "date", id: "timeline-since",
        value: filters.since, onchange: change("since") })),
      h("label", {}, "to ", h("input", { type: "date", id: "timeline-until",
        value: filters.until, onchange: change("until") })),
      h("label", {}, h("input", { type: "checkbox", checked: filters.superseded,
        onchange: change("superseded") }), " superseded too"))),
    results);
  await load();
}

function draw(results, events, names) {
  if (!events.length) {
    mount(results, empty("No events."));
    return;
  }
  const months = new Map();
  for (const ev of events) {
    const month = fmtTime(ev.event_time).slice(0, 7);
    if (!months.has(month)) months.set(month, []);
    months.get(month).push(ev);
  }
  const sections = h("div", { class: "months" });
  mount(results, h("p", { class: "count", id: "timeline-count" }, plural(events.length, "event")),
    sections);
  paged(sections, [...months], ([month, list]) => h("section", {
    class: "month", dataset: { month } },
  h("h3", {}, month, h("span", { class: "muted" }, ` · ${list.length}`)),
  h("ul", { class: "events" }, list.map((ev) => h("li", {
    class: `event${ev.superseded_by ? " superseded" : ""}`, dataset: { eventId: ev.id } },
  h("span", { class: "when" }, fmtTime(ev.event_time)),
  badge(ev.kind, `kind-${ev.kind}`),
  h("span", { class: "summary", lang: ev.language === "zh" ? "zh" : null }, ev.summary),
  ev.superseded_by ? badge("superseded", "off") : null,
  h("div", { class: "sub" },
    ev.entities.map((id) => h("a", { class: "chip",
      href: `#/graph?entity=${encodeURIComponent(id)}` }, names.get(id) || id)),
    provenance(ev.provenance)))))), { size: 12 });
}
