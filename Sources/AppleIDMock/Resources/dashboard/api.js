// The control plane's JSON API as the dashboard calls it: same origin, the admin token (if any)
// in an Authorization header, and errors turned into ApiError with the server's problems.

const TOKEN_KEY = "apple-id-mock.admin-token";

/** An answer other than 2xx: the status, the server's message, and its problems (JSON paths). */
export class ApiError extends Error {
  constructor(status, body, fallback) {
    super(body?.message || body?.error_description || body?.error || fallback);
    this.status = status;
    this.code = body?.error;
    this.problems = Array.isArray(body?.problems) ? body.problems : [];
    this.moreProblems = body?.moreProblems || 0;
    this.body = body;
  }
}

/** The admin token: kept for this tab (sessionStorage) or, if asked, for this browser (localStorage). */
export const token = {
  get() {
    return sessionStorage.getItem(TOKEN_KEY) || localStorage.getItem(TOKEN_KEY) || "";
  },
  set(value, remember) {
    // localStorage outlives the tab and is readable by any page of this origin: only if asked.
    sessionStorage.setItem(TOKEN_KEY, value);
    if (remember) localStorage.setItem(TOKEN_KEY, value);
    else localStorage.removeItem(TOKEN_KEY);
  },
  forget() {
    sessionStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(TOKEN_KEY);
  },
};

/**
 * Calls `path` on the control plane. `body` is sent as JSON (a string is sent as it is, for
 * uploaded files). Resolves with the parsed answer, or rejects with an ApiError.
 */
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const secret = token.get();
  if (secret) headers.Authorization = `Bearer ${secret}`;
  const init = { method, headers, cache: "no-store", credentials: "omit" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, null, `the server did not answer (${error.message})`);
  }
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) throw new ApiError(response.status, parsed, `HTTP ${response.status}`);
  return parsed;
}
