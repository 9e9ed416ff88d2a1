// Graph: entities and relations as an interactive network (cytoscape.js: pan, zoom, select),
// filtered by entity type and scope, with a time slider that shows the graph as of a date.
// Selecting an entity shows its page and its facts.

import { api, path } from "./api.js";
import {
  badge, debounce, distinct, empty, endOfDay, errorBox, fmtDate, h, latest, markdown, mount,
  provenance, select, STALE,
} from "./ui.js";

const DAY = 86400;
const COLORS = {
  person: "#d9603b", preference: "#3f9b74", constraint: "#c99a2e", decision: "#4a4e8f",
  project: "#7b4fa6", tool: "#1f7fc0", concept: "#6c9a1f", organization: "#c2405a",
  event: "#b07d12", resource: "#6d597a",
};
const FONT = getComputedStyle(document.documentElement).getPropertyValue("--font").trim() ||
  "sans-serif";

const view = { scope: "", hidden: new Set(), day: null, selected: null, cy: null };
const freshGraph = latest();
const freshEntity = latest();

export async function render(container, { params }) {
  if (typeof window.cytoscape !== "function") throw new Error("cytoscape.js did not load");
  view.selected = params.get("entity") || view.selected;
  const all = await api("/v1/entities");
  const now = await api("/v1/graph", { query: { scope: view.scope || undefined } });
  const canvas = h("div", { id: "graph-canvas", "aria-label": "Knowledge graph" });
  const side = h("aside", { id: "graph-side", class: "side" },
    empty("Select an entity to see its page and its facts."));
  const status = h("p", { id: "graph-status", class: "count" });
  const slider = timeSlider(now);
  mount(container,
    h("div", { class: "toolbar" }, h("div", { class: "filters" },
      select({ id: "graph-scope", "aria-label": "Scope",
        onchange: (e) => { view.scope = e.target.value; refresh(); } },
      [{ value: "", label: "Scope: all" }, ...distinct(all, "scope")], view.scope),
      typeFilter(distinct(all, "type")),
      h("button", { type: "button", id: "graph-fit", onclick: fit }, "Fit"))),
    slider.el, status,
    h("div", { class: "graph-layout" }, canvas, side));
  view.cy = window.cytoscape({
    container: canvas, elements: [], style: style(), minZoom: 0.15, maxZoom: 4,
    boxSelectionEnabled: false,
  });
  view.cy.on("tap", "node", (event) => selectEntity(event.target.id(), side));
  view.cy.on("tap", (event) => {
    if (event.target === view.cy) {
      view.selected = null;
      view.cy.elements().unselect();
      mount(side, empty("Select an entity to see its page and its facts."));
    }
  });
  const refresh = async () => {
    try {
      const at = view.day === null ? undefined : endOfDay(fmtDate(view.day * DAY));
      const snap = await freshGraph(api("/v1/graph", {
        query: { at, scope: view.scope || undefined } }));
      if (snap === STALE) return;
      apply(snap, status);
      if (view.selected) selectEntity(view.selected, side);
    } catch (err) {
      mount(status, errorBox(err));
    }
  };
  slider.onchange(refresh);
  await refresh();
}

function timeSlider(now) {
  const today = Math.ceil(Date.now() / 1000 / DAY);
  const first = now.start ? Math.floor(now.start / DAY) : today - 1;
  const last = Math.max(today, now.end ? Math.ceil(now.end / DAY) : today);
  if (view.day !== null && (view.day < first || view.day > last)) view.day = null;
  const input = h("input", { type: "range", id: "graph-time", min: first, max: last, step: 1,
    value: view.day === null ? last : view.day, "aria-label": "Show the graph as of" });
  const label = h("output", { id: "graph-time-label", for: "graph-time" });
  const show = () => {
    label.textContent = view.day === null ? "now" : fmtDate(view.day * DAY);
  };
  let listener = () => {};
  const changed = debounce(() => listener(), 150);
  input.addEventListener("input", () => {
    const day = Number(input.value);
    view.day = day >= last ? null : day;
    show();
    changed();
  });
  const nowButton = h("button", { type: "button", id: "graph-now", onclick: () => {
    input.value = last;
    view.day = null;
    show();
    listener();
  } }, "Now");
  show();
  return {
    el: h("div", { class: "time-slider" }, h("span", { class: "muted" }, fmtDate(first * DAY)),
      input, h("span", { class: "muted" }, "now"), h("span", {}, "As of ", label), nowButton),
    onchange: (fn) => { listener = fn; },
  };
}

function typeFilter(types) {
  return h("div", { class: "type-filter", role: "group", "aria-label": "Entity types" },
    types.map((type) => {
      const swatch = h("span", { class: "swatch" });
      swatch.style.background = COLORS[type] || "#888";
      return h("label", { class: "type-chip" }, h("input", {
        type: "checkbox", checked: !view.hidden.has(type), dataset: { type },
        onchange: (e) => {
          if (e.target.checked) view.hidden.delete(type); else view.hidden.add(type);
          applyTypes();
        },
      }), swatch, type);
    }));
}

function style() {
  return [
    { selector: "node", style: {
      label: "data(label)", "background-color": (n) => COLORS[n.data("type")] || "#888",
      color: "#1d2433", "font-size": 11, "font-family": FONT, "text-valign": "bottom",
      "text-margin-y": 4, width: 22, height: 22, "text-wrap": "ellipsis", "text-max-width": 140,
    } },
    { selector: "node:selected", style: { "border-width": 4, "border-color": "#1d2433" } },
    { selector: "edge", style: {
      label: "data(label)", width: 1.6, "line-color": "#9aa5b8", "target-arrow-color": "#9aa5b8",
      "target-arrow-shape": "triangle", "curve-style": "bezier", "font-size": 9,
      "font-family": FONT, color: "#4a5468", "text-rotation": "autorotate",
      "text-background-color": "#fff", "text-background-opacity": 0.8,
    } },
    { selector: ".filtered", style: { display: "none" } },
  ];
}

function apply(snap, status) {
  const cy = view.cy;
  const wanted = new Set();
  let added = 0;
  cy.batch(() => {
    for (const e of snap.entities) {
      wanted.add(e.id);
      if (cy.getElementById(e.id).empty()) {
        cy.add({ group: "nodes", data: { id: e.id, label: e.name, type: e.type } });
        added += 1;
      }
    }
    for (const r of snap.edges) {
      wanted.add(r.id);
      if (cy.getElementById(r.id).empty()) {
        cy.add({ group: "edges", data: { id: r.id, source: r.from, target: r.to,
          label: r.relation } });
      }
    }
    cy.elements().filter((el) => !wanted.has(el.id())).remove();
  });
  applyTypes();
  if (added) {
    cy.layout({ name: "cose", animate: false, randomize: cy.nodes().length === added,
      nodeRepulsion: () => 400000, idealEdgeLength: () => 110, nodeOverlap: 40,
      componentSpacing: 90, gravity: 0.4, numIter: 1500, padding: 30 }).run();
    fit();
  }
  const when = snap.at === null ? "now" : `as of ${fmtDate(snap.at)}`;
  status.dataset.nodes = String(snap.entities.length);
  status.dataset.edges = String(snap.edges.length);
  status.dataset.at = snap.at === null ? "" : String(snap.at);
  mount(status, `${when} · ${snap.entities.length} entities · ${snap.edges.length} relations`);
}

/** Fit the graph in view, without blowing a handful of nodes up to giant size. */
function fit() {
  if (!view.cy) return;
  view.cy.fit(undefined, 30);
  if (view.cy.zoom() > 1.4) {
    view.cy.zoom(1.4);
    view.cy.center();
  }
}

function applyTypes() {
  view.cy.nodes().forEach((n) => {
    n.toggleClass("filtered", view.hidden.has(n.data("type")));
  });
}

async function selectEntity(id, side) {
  view.selected = id;
  const node = view.cy.getElementById(id);
  view.cy.elements().unselect();
  if (!node.empty()) node.select();
  mount(side, h("p", { class: "muted" }, "Loading…"));
  try {
    const at = view.day === null ? undefined : endOfDay(fmtDate(view.day * DAY));
    const answer = await freshEntity(Promise.all([
      api(path`/v1/entities/${id}/view`),
      api("/v1/facts", { query: { entity: id, history: true } })]));
    if (answer === STALE) return;
    const [page, facts] = answer;
    const t = at ? Date.parse(at) / 1000 : Date.now() / 1000;
    mount(side,
      h("div", { class: "entity-page", dataset: { entity: id } }, markdown(page.markdown)),
      h("h4", {}, "Facts"),
      facts.length ? h("ul", { class: "entity-facts" }, facts.map((f) => {
        const holds = f.valid_from <= t && (f.valid_to === null || t < f.valid_to);
        return h("li", { class: holds ? "" : "past" }, f.fact, " ",
          badge(`${fmtDate(f.valid_from)} → ${f.valid_to ? fmtDate(f.valid_to) : "now"}`,
            holds ? "ok" : "off"), h("div", {}, provenance(f.provenance)));
      })) : empty("No facts."),
      h("p", {}, h("a", { href: `#/facts?entity=${encodeURIComponent(id)}` }, "All its facts"),
        " · ", h("a", { href: `#/timeline?entity=${encodeURIComponent(id)}` }, "Its timeline")));
  } catch (err) {
    mount(side, errorBox(err));
  }
}
