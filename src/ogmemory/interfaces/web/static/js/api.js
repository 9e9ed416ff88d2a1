// The REST API client of the page: same-origin fetches to /v1, with the tenant's API key.
//
// The key lives in sessionStorage (this tab only, gone when it closes) and is sent only to
// this server. Errors are the API's RFC 7807 problem details, raised as ApiError.

const KEY_STORAGE = "ogmemory.apiKey";

export class ApiError extends Error {
  constructor(status, title, detail, body) {
    super(detail || title || `HTTP ${status}`);
    this.status = status;
    this.title = title || `HTTP ${status}`;
    this.detail = detail || "";
    this.body = body || null;
  }
}

let unauthorizedHandler = null;

/** Called (once per failing request) when the server answers 401. */
export function onUnauthorized(handler) {
  unauthorizedHandler = handler;
}

export function getKey() {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function setKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

function url(path, query) {
  const u = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value === undefined || value === null || value === "" || value === false) continue;
    if (Array.isArray(value)) value.forEach((v) => u.searchParams.append(name, v));
    else u.searchParams.set(name, String(value));
  }
  return u.pathname + u.search;
}

/** One API call. `path` starts with /v1 (or /health); returns the JSON body (null on 204). */
export async function api(path, { method = "GET", query, body, key } = {}) {
  const headers = { Accept: "application/json" };
  const token = key === undefined ? getKey() : key;
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { method, headers, credentials: "omit", cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url(path, query), init);
  } catch (err) {
    throw new ApiError(0, "Network error", `The server did not answer (${err.message}).`);
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { detail: text };
    }
  }
  if (!response.ok) {
    const problem = data && typeof data === "object" ? data : {};
    const error = new ApiError(response.status, problem.title, problem.detail, problem);
    if (response.status === 401 && unauthorizedHandler) unauthorizedHandler(error);
    throw error;
  }
  return data;
}

/** The path of a resource, its id parts encoded. */
export function path(strings, ...values) {
  return strings.reduce((out, part, i) =>
    out + part + (i < values.length ? encodeURIComponent(values[i]) : ""), "");
}
