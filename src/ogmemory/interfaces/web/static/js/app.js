// The page: sign-in (API key when the server has keys), the tab router, and the views.

import { api, ApiError, getKey, onUnauthorized, setKey } from "./api.js";
import { clearNotice, errorBox, h, mount } from "./ui.js";
import * as memories from "./memories.js";
import * as facts from "./facts.js";
import * as graph from "./graph.js";
import * as timeline from "./timeline.js";
import * as sessions from "./sessions.js";
import * as batches from "./batches.js";
import * as core from "./core.js";

const VIEWS = { memories, facts, graph, timeline, sessions, batches, core };

const state = { auth: null, tenant: null, rendering: 0 };

/** The current hash as {tab, rest: [path segments], params: URLSearchParams}. */
export function route() {
  const raw = window.location.hash.replace(/^#\/?/, "");
  const [pathPart, queryPart] = raw.split("?", 2);
  const segments = pathPart.split("/").filter(Boolean).map(decodeURIComponent);
  const tab = segments[0] in VIEWS ? segments[0] : "memories";
  return { tab, rest: segments.slice(1), params: new URLSearchParams(queryPart || "") };
}

async function render() {
  const ticket = ++state.rendering;
  const { tab, rest, params } = route();
  for (const link of document.querySelectorAll("#tabs a")) {
    link.classList.toggle("active", link.dataset.tab === tab);
    if (link.dataset.tab === tab) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const view = document.getElementById("view");
  view.dataset.view = tab;
  view.dataset.ready = "false";
  const container = h("div", { class: `view view-${tab}` });
  mount(view, container);
  try {
    await VIEWS[tab].render(container, { rest, params });
  } catch (err) {
    if (ticket !== state.rendering) return;
    container.append(errorBox(err));
  }
  if (ticket === state.rendering) view.dataset.ready = "true";
}

function showTenant() {
  const who = document.getElementById("tenant");
  const t = state.tenant;
  who.textContent = t ? `${t.account} / ${t.space}${t.auth === "local" ? " (local)" : ""}` : "";
  document.getElementById("signout").hidden = state.auth !== "keys";
}

/** Ask for a key until the server accepts one; resolves with the tenant. */
function askForKey(message) {
  const dialog = document.getElementById("key-dialog");
  const input = document.getElementById("key-input");
  const error = document.getElementById("key-error");
  error.textContent = message || "";
  error.hidden = !message;
  input.value = "";
  if (!dialog.open) dialog.showModal();
  return new Promise((resolve) => {
    const form = document.getElementById("key-form");
    const submit = async (event) => {
      event.preventDefault();
      const key = input.value.trim();
      try {
        const tenant = await api("/v1/whoami", { key });
        setKey(key);
        form.removeEventListener("submit", submit);
        dialog.close();
        resolve(tenant);
      } catch (err) {
        error.textContent = err instanceof ApiError && err.status === 401
          ? "This key is unknown or revoked." : `The server refused: ${err.message}`;
        error.hidden = false;
      }
    };
    form.addEventListener("submit", submit);
    dialog.addEventListener("cancel", (event) => event.preventDefault());
  });
}

async function signIn() {
  const health = await api("/health", { key: null });
  state.auth = health.auth;
  if (state.auth === "keys") {
    let tenant = null;
    if (getKey()) {
      try {
        tenant = await api("/v1/whoami");
      } catch {
        setKey(null);
      }
    }
    state.tenant = tenant || await askForKey();
  } else {
    setKey(null);
    state.tenant = await api("/v1/whoami", { key: null });
  }
  showTenant();
}

async function start() {
  onUnauthorized(async () => {
    if (state.auth !== "keys") return;
    setKey(null);
    state.tenant = await askForKey("The key is no longer accepted; enter another.");
    showTenant();
    render();
  });
  document.getElementById("signout").addEventListener("click", async () => {
    setKey(null);
    state.tenant = null;
    showTenant();
    mount(document.getElementById("view"), h("p", { class: "muted" }, "Signed out."));
    state.tenant = await askForKey();
    showTenant();
    render();
  });
  try {
    await signIn();
  } catch (err) {
    mount(document.getElementById("view"), errorBox(err));
    return;
  }
  window.addEventListener("hashchange", () => {
    clearNotice();
    render();
  });
  render();
}

start();
