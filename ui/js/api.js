// The REST API client: bearer auth, JSON in and out, RFC 9457 problems as ApiError.
import * as session from "./session.js";

/** A failed request: the problem+json fields (type, title, detail, status, field, position, ...). */
export class ApiError extends Error {
  constructor(problem, status) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    Object.assign(this, problem);
    this.status = status;
    this.problem = problem;
  }
}

function headers(path, extra, credential) {
  const s = session.current();
  const out = { Accept: "application/json, application/problem+json", ...extra };
  const token = credential || (path.startsWith("/v1/admin") ? s?.operatorToken : s?.credential);
  if (token) out.Authorization = `Bearer ${token}`;
  return out;
}

/** Send a request; resolves to {data, etag, status}, rejects with ApiError. */
export async function request(method, path, { body, query, ifMatch, credential } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    // A list is a repeated parameter (label=team=ops&label=env).
    for (const one of Array.isArray(v) ? v : [v]) {
      if (one !== undefined && one !== null && one !== "") url.searchParams.append(k, one);
    }
  }
  const extra = {};
  if (body !== undefined) extra["Content-Type"] = "application/json";
  if (ifMatch) extra["If-Match"] = ifMatch;
  let response;
  try {
    response = await fetch(url, {
      method,
      headers: headers(url.pathname, extra, credential),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError({ title: "Cannot reach the server", detail: String(error.message || error) }, 0);
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { detail: text.slice(0, 300) };
    }
  }
  if (response.status === 401 && !credential) window.dispatchEvent(new CustomEvent("cadenza:unauthorized", { detail: data }));
  if (!response.ok) throw new ApiError(problemOf(data, response), response.status);
  return { data, etag: response.headers.get("ETag"), status: response.status };
}

function problemOf(data, response) {
  return data && typeof data === "object" ? data : { title: response.statusText || `HTTP ${response.status}` };
}

export const get = (path, query) => request("GET", path, { query }).then((r) => r.data);
export const post = (path, body) => request("POST", path, { body }).then((r) => r.data);
export const put = (path, body) => request("PUT", path, { body }).then((r) => r.data);
export const del = (path) => request("DELETE", path).then((r) => r.data);

/** The items of a list response, whether the API answered a page or a bare array. */
export const items = (data) => (Array.isArray(data) ? data : data?.items || []);

/** The problem's field errors as [{field, message, position, line, hint}]. */
export function fieldErrors(error) {
  const list = (error.errors || []).map((e) => ({
    field: e.field || (e.loc || []).filter((p) => p !== "body").join("."),
    message: e.message || e.msg || e.detail,
    position: e.position, line: e.line, hint: e.hint,
  }));
  if (!list.length && error.field) list.push({ field: error.field, message: error.detail, position: error.position, line: error.line, hint: error.hint });
  // A quota problem names the quota ("max_timeout_ms"); the field it limits is the same name without "max_".
  if (!list.length && error.quota) list.push({ field: error.quota.replace(/^max_/, ""), message: error.detail });
  return list.filter((e) => e.field);
}
