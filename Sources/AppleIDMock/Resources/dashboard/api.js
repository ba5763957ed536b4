// The control plane's JSON API as the dashboard calls it: same origin, under the page's namespace
// prefix (a page at /ns/team-a/__admin/ calls /ns/team-a/__admin/…), the admin token (if any) in an
// Authorization header, and errors turned into ApiError with the server's problems.

const TOKEN_KEY = "apple-id-mock.admin-token";

/** A namespace's name: 1 to 64 of A-Z a-z 0-9 . _ - (the server's rule). */
export const NAMESPACE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** The namespace every request without one is in. */
export const DEFAULT_NAMESPACE = "default";

/** The namespace the page was opened under: `/ns/{name}/__admin/` gives `name`, otherwise the default. */
export const namespace = (() => {
  const match = /^\/ns\/([^/]+)\//.exec(window.location.pathname);
  if (!match) return DEFAULT_NAMESPACE;
  try {
    const name = decodeURIComponent(match[1]);
    return NAMESPACE_NAME.test(name) ? name : DEFAULT_NAMESPACE;
  } catch {
    return DEFAULT_NAMESPACE;
  }
})();

/** The path prefix of a namespace's URLs: `/ns/{name}`, empty for the default namespace. */
export function prefixOf(name) {
  return name === DEFAULT_NAMESPACE ? "" : `/ns/${encodeURIComponent(name)}`;
}

/** The page's own prefix, which every control-plane path the page calls or links to carries. */
export const prefix = prefixOf(namespace);

/** `path` (an absolute path such as `/__admin/mail/m1/raw`) in the page's namespace. */
export function inNamespace(path) {
  return prefix + path;
}

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
 * Calls `path` on the control plane, in the page's namespace (`unprefixed`: as written, for the
 * namespaces' own management under the default control plane). `body` is sent as JSON (a string
 * is sent as it is, for uploaded files). Resolves with the parsed answer, or rejects with an ApiError.
 */
export async function api(method, path, body, { unprefixed = false } = {}) {
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
    response = await fetch(unprefixed ? path : inNamespace(path), init);
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
