// Sessions (seed 001): the list (titles, dates, projects); a session's conversation as a DAG
// whose forks are retries, with its tool calls; its turn commits per git branch; rename and
// delete (with confirmation).

import { api, path } from "./api.js";
import {
  badge, confirmDialog, empty, errorBox, fmtTime, h, mount, notice, plural, select, shortSha,
} from "./ui.js";

export async function render(container, { rest, params }) {
  const list = await api("/v1/sessions");
  const current = rest[0] || null;
  const detail = h("section", { class: "session-detail", id: "session-detail" });
  mount(container, h("div", { class: "split" },
    h("nav", { class: "session-list", id: "session-list", "aria-label": "Sessions" },
      h("p", { class: "count" }, plural(list.length, "session")),
      list.length ? list.map((s) => h("a", {
        href: `#/sessions/${encodeURIComponent(s.session_id)}`,
        class: `session-item${s.session_id === current ? " active" : ""}`,
        dataset: { sessionId: s.session_id } },
      h("strong", { class: "title" }, s.display_title || s.session_id),
      h("span", { class: "muted" }, `${fmtTime(s.updated_at)} · ${plural(s.turns, "turn")}`),
      h("span", { class: "muted" }, `project ${s.project_id} · ${s.session_id}`)))
        : empty("No sessions yet.")),
    detail));
  if (!current) {
    mount(detail, empty(list.length ? "Select a session." : ""));
    return;
  }
  await showSession(detail, current, (params.get("node") || "").split(",").filter(Boolean));
}

async function showSession(detail, sid, targets) {
  let session;
  let nodes;
  let branches;
  try {
    [session, nodes, branches] = await Promise.all([api(path`/v1/sessions/${sid}`),
      api(path`/v1/sessions/${sid}/nodes`), api(path`/v1/sessions/${sid}/branches`)]);
  } catch (err) {
    mount(detail, errorBox(err));
    return;
  }
  const dag = h("div", { class: "dag", id: "session-dag" }, conversation(nodes, session.head, branches));
  const commits = h("div", { class: "commits", id: "session-commits" });
  const header = h("div", { class: "session-head" });
  drawHeader(header, session);
  mount(detail, header,
    h("div", { class: "meta" },
      h("span", {}, `id ${session.session_id}`), h("span", {}, `project ${session.project_id}`),
      session.agent_id ? h("span", {}, `agent ${session.agent_id}`) : null,
      session.model ? h("span", {}, `model ${session.model}`) : null,
      h("span", {}, `created ${fmtTime(session.created_at)}`),
      h("span", {}, `updated ${fmtTime(session.updated_at)}`),
      h("span", {}, `${plural(session.turns, "turn")} · ${plural(nodes.length, "node")}`)),
    h("h3", {}, "Conversation"),
    h("p", { class: "muted help" }, "Forks are retries (each a git branch); the highlighted " +
      "path leads to the current head."),
    dag,
    h("h3", {}, "Turn commits"),
    h("div", { class: "toolbar" }, select({ id: "session-branch", "aria-label": "Branch",
      onchange: (e) => drawCommits(commits, sid, e.target.value, dag) },
    [{ value: "", label: "current branch" }, ...branches], "")),
    commits);
  highlight(dag, targets);
  await drawCommits(commits, sid, "", dag);
}

function drawHeader(header, session) {
  const rename = h("button", { type: "button", dataset: { action: "rename" }, onclick: () => {
    const input = h("input", { id: "session-title", value: session.title || "",
      maxlength: 200, required: true, "aria-label": "Title" });
    mount(header, h("form", { class: "rename", onsubmit: async (e) => {
      e.preventDefault();
      try {
        const updated = await api(path`/v1/sessions/${session.session_id}`, {
          method: "PATCH", body: { title: input.value.trim() } });
        notice("Renamed.", "ok");
        const item = document.querySelector(
          `.session-item[data-session-id="${CSS.escape(session.session_id)}"] .title`);
        if (item) item.textContent = updated.display_title;
        drawHeader(header, updated);
      } catch (err) {
        header.append(errorBox(err));
      }
    } }, input, h("button", { type: "submit", class: "primary" }, "Save"),
    h("button", { type: "button", onclick: () => drawHeader(header, session) }, "Cancel")));
    input.focus();
  } }, "Rename");
  const remove = h("button", { type: "button", class: "danger", dataset: { action: "delete" },
    onclick: async () => {
      const ok = await confirmDialog("Delete this session?",
        `“${session.display_title}” and its whole git history will be removed from disk. ` +
        "What was distilled from it stays, with pointers that no longer open. This cannot be " +
        "undone.", "Delete session");
      if (!ok) return;
      try {
        await api(path`/v1/sessions/${session.session_id}`, { method: "DELETE" });
        notice(`Deleted session ${session.session_id}.`, "ok");
        window.location.hash = "#/sessions";
      } catch (err) {
        notice(`Could not delete: ${err.message}`, "error");
      }
    } }, "Delete");
  mount(header, h("h2", { id: "session-heading" }, session.display_title || session.session_id),
    h("div", { class: "actions" }, rename, remove));
}

function textOf(content) {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === "string" ? p : p.text || `[${p.type || "part"}]`))
      .join("\n");
  }
  return JSON.stringify(content);
}

/** The DAG as nested chains: a node with several children forks into columns (retries). */
function conversation(nodes, head, branches) {
  if (!nodes.length) return empty("No messages.");
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const children = new Map();
  const roots = [];
  for (const n of nodes) {
    if (n.parent_id && byId.has(n.parent_id)) {
      if (!children.has(n.parent_id)) children.set(n.parent_id, []);
      children.get(n.parent_id).push(n);
    } else {
      roots.push(n);
    }
  }
  const onPath = new Set();
  for (let id = head; id && byId.has(id) && !onPath.has(id); id = byId.get(id).parent_id) {
    onPath.add(id);
  }
  const chain = (start) => {
    const out = h("div", { class: "chain" });
    let node = start;
    while (node) {
      out.append(message(node, onPath));
      const kids = (children.get(node.id) || []).sort((a, b) => a.seq - b.seq);
      if (kids.length > 1) {
        out.append(h("div", { class: "fork", dataset: { forkAt: node.id } }, kids.map((kid, i) =>
          h("div", { class: `branch${onPath.has(kid.id) ? " on-path" : ""}` },
            h("div", { class: "branch-label" }, i === 0 ? "original" : `retry ${i}`,
              i > 0 ? branchOf(kids.slice(0, i), branches) : null,
              onPath.has(kid.id) ? badge("current", "ok") : null),
            chain(kid)))));
        return out;
      }
      node = kids[0];
    }
    return out;
  };
  return roots.sort((a, b) => a.seq - b.seq).map(chain);
}

/** The git branch of a retry: ``retry-<id>`` of an earlier sibling (the reply retried). */
function branchOf(earlier, branches) {
  const name = earlier.map((k) => `retry-${k.id}`).find((b) => branches.includes(b));
  return name ? h("code", { class: "muted" }, ` ${name}`) : null;
}

function message(n, onPath) {
  const calls = (n.tool_calls || []).map((call) => {
    const fn = call.function || {};
    return h("div", { class: "tool-call" }, "⚙ ", h("code", {}, `${fn.name || call.type}(` +
      `${fn.arguments || ""})`), call.id ? h("span", { class: "muted" }, ` · ${call.id}`) : null);
  });
  const text = textOf(n.content);
  return h("div", {
    class: `msg role-${n.role}${onPath.has(n.id) ? " on-path" : " off-path"}`,
    id: `node-${n.id}`, dataset: { nodeId: n.id, role: n.role } },
  h("div", { class: "msg-head" }, badge(n.role, `role-${n.role}`),
    n.role === "tool" && n.tool_call_id ? h("span", { class: "muted" },
      `result of ${n.tool_call_id}`) : null,
    h("span", { class: "muted" }, ` #${n.seq} · ${fmtTime(n.event_time)} · `),
    h("code", { class: "muted" }, n.id)),
  text ? h("div", { class: "msg-text" }, text) : null,
  calls);
}

function highlight(dag, ids) {
  dag.querySelectorAll(".msg.target").forEach((el) => el.classList.remove("target"));
  let first = null;
  for (const id of ids) {
    const el = dag.querySelector(`[data-node-id="${CSS.escape(id)}"]`);
    if (el) {
      el.classList.add("target");
      first = first || el;
    }
  }
  if (first) first.scrollIntoView({ block: "center" });
  else if (ids.length) notice(`Turn ${ids.join(", ")} is not in this session any more.`, "error");
}

async function drawCommits(commits, sid, branch, dag) {
  try {
    const log = await api(path`/v1/sessions/${sid}/log`, { query: { branch: branch || undefined } });
    mount(commits, log.length ? h("ol", { class: "commit-list" }, log.map((c) => h("li", {
      dataset: { sha: c.sha } },
    h("button", { type: "button", class: "link", title: "Show its messages in the conversation",
      onclick: () => highlight(dag, c.node_ids) }, h("code", {}, shortSha(c.sha))),
    ` ${c.message} `, h("span", { class: "muted" },
      `· ${fmtTime(c.time)} · ${c.branch || ""} · ${plural(c.node_ids.length, "node")}`))))
      : empty("No committed turns."));
  } catch (err) {
    mount(commits, errorBox(err));
  }
}
