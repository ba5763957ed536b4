// The namespace picker in the header, on every section: which namespace the page shows and
// changes (its URL's /ns/{name}/ prefix), the namespaces with their last use, switch, create and
// delete, and "work in this namespace": the browser cookie that sends this browser's unprefixed
// sign-ins (/auth/authorize, Sign in with Apple JS, discovery) to a namespace.

import { DEFAULT_NAMESPACE, NAMESPACE_NAME, api, namespace, prefixOf } from "./api.js";
import { act, confirmAction, fillTable, h, report, time } from "./dom.js";

/** The cookie the server reads (NamespaceName.cookie). */
const COOKIE = "apple_id_mock_namespace";

/** The namespace this browser's cookie names, or the default without one. */
export function cookieNamespace() {
  for (const pair of document.cookie.split(";")) {
    const [name, ...rest] = pair.trim().split("=");
    const value = rest.join("=");
    if (name === COOKIE && NAMESPACE_NAME.test(value)) return value;
  }
  return DEFAULT_NAMESPACE;
}

/** Points this browser's cookie at `name` (for the whole host), or clears it for the default. */
function setCookie(name) {
  document.cookie = name === DEFAULT_NAMESPACE
    ? `${COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`
    : `${COOKIE}=${name}; Path=/; SameSite=Lax`;
}

/** The dashboard of namespace `name`. */
function dashboardOf(name) {
  return `${prefixOf(name)}/__admin/`;
}

/** Why `name` is not a namespace a tester can create, or "" when it is one. */
function nameProblem(name) {
  if (!name) return "Enter a name.";
  if (name.length > 64) return `At most 64 characters; this one has ${name.length}.`;
  if (!NAMESPACE_NAME.test(name)) {
    const bad = [...name].find((c) => !/[A-Za-z0-9._-]/.test(c));
    return `Only letters, digits, ".", "_" and "-"; found "${bad}".`;
  }
  if (name === DEFAULT_NAMESPACE) return "The default namespace always exists.";
  return "";
}

export function createNamespaces(ctx) {
  const $ = (id) => document.getElementById(id);
  let listing = [];

  function showCookie() {
    const cookie = cookieNamespace();
    $("glance-namespace").textContent = namespace;
    $("glance-cookie").textContent = cookie;
    $("glance-cookie").classList.toggle("elsewhere", cookie !== namespace);
    const here = cookie === namespace;
    const work = $("namespace-work");
    const stop = $("namespace-stop");
    // In the default namespace, "work here" is clearing the cookie; elsewhere it sets it.
    work.hidden = here;
    stop.hidden = !(here && namespace !== DEFAULT_NAMESPACE);
  }

  $("namespace-work").addEventListener("click", () => {
    setCookie(namespace);
    showCookie();
    noteCookie();
  });

  $("namespace-stop").addEventListener("click", () => {
    setCookie(DEFAULT_NAMESPACE);
    showCookie();
    noteCookie();
  });

  function noteCookie() {
    const cookie = cookieNamespace();
    report("namespaces", cookie === DEFAULT_NAMESPACE
      ? "This browser's sign-ins without a namespace go to the default namespace."
      : `This browser's sign-ins without a namespace go to ${cookie}.`);
  }

  $("namespace-switch").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("namespace-choice").value;
    if (name && name !== namespace) window.location.assign(dashboardOf(name));
  });

  $("namespace-name").addEventListener("input", () => {
    const field = $("namespace-name");
    field.removeAttribute("aria-invalid");
    $("namespace-problems").replaceChildren();
  });

  $("namespace-create").addEventListener("submit", async (event) => {
    event.preventDefault();
    const field = $("namespace-name");
    const name = field.value.trim();
    const problems = $("namespace-problems");
    const problem = nameProblem(name);
    if (problem) {
      field.setAttribute("aria-invalid", "true");
      problems.replaceChildren(h("p", { class: "error", text: problem }));
      field.focus();
      return;
    }
    field.removeAttribute("aria-invalid");
    const created = await act("namespaces", event.submitter,
      () => api("PUT", `/__admin/namespaces/${encodeURIComponent(name)}`, {}, { unprefixed: true }),
      (record) => `Created ${record.name}.`, problems);
    if (!created) return;
    field.value = "";
    if ($("namespace-open").checked) {
      window.location.assign(dashboardOf(name));
      return;
    }
    await refresh(true);
  });

  async function remove(button, record) {
    const here = record.name === namespace;
    const cookie = cookieNamespace() === record.name;
    const effects = [
      `Forgets everything in ${record.name}: its scenario and settings, clock, faults, keys, consents, codes and tokens, events, notifications, journal and mail.`,
    ];
    if (here) effects.push("This page then shows the default namespace.");
    if (cookie) effects.push("This browser stops working in it: its sign-ins go to the default namespace again.");
    const sure = await confirmAction({
      title: `Delete namespace ${record.name}?`, effects,
      notified: "A request that names it later makes it again, empty.", action: "Delete namespace",
    });
    if (!sure) return;
    const done = await act("namespaces", button,
      () => api("DELETE", `/__admin/namespaces/${encodeURIComponent(record.name)}`, undefined, { unprefixed: true }),
      `Deleted ${record.name}.`);
    if (!done) return;
    if (cookie) setCookie(DEFAULT_NAMESPACE);
    // The page's own world is gone: a request under its prefix would make it again.
    if (here) {
      window.location.assign(dashboardOf(DEFAULT_NAMESPACE));
      return;
    }
    showCookie();
    await refresh(true);
  }

  function lastUse(record) {
    return record.lastUsedAt ? time(record.lastUsedAt) : "always in use";
  }

  function render() {
    const names = listing.map((record) => record.name);
    if (!names.includes(namespace)) names.push(namespace);
    const select = $("namespace-choice");
    const key = JSON.stringify(listing.map((r) => [r.name, r.lastUsedAt]).concat([[namespace]]));
    if (select.dataset.key !== key) {
      const chosen = select.dataset.key ? select.value : namespace;
      select.dataset.key = key;
      select.replaceChildren(...names.map((name) => {
        const record = listing.find((r) => r.name === name);
        const when = record?.lastUsedAt ? `, last used ${record.lastUsedAt.replace("T", " ").replace(/\.\d+Z$/, "Z")}` : "";
        return h("option", { value: name, selected: name === chosen }, `${name}${when}`);
      }));
    }
    fillTable($("namespace-table").querySelector("tbody"), JSON.stringify(listing), () => listing.map((record) => {
      const isDefault = record.name === DEFAULT_NAMESPACE;
      const counts = Object.entries(record.counts || {}).filter(([, n]) => n > 0).map(([space, n]) => `${n} ${space}`).join(", ") || "empty";
      const actions = h("td", { class: "actions" });
      if (record.name !== namespace) {
        actions.append(h("a", { href: dashboardOf(record.name), "data-focus": `open-${record.name}` }, "Open"));
      } else {
        actions.append(h("span", { class: "muted", text: "shown" }));
      }
      if (!isDefault) {
        actions.append(" ", h("button", {
          type: "button", class: "danger small-button", "aria-label": `Delete namespace ${record.name}`,
          "data-focus": `delete-${record.name}`, onclick: (event) => remove(event.currentTarget, record),
        }, "Delete"));
      }
      return h("tr", { "data-namespace": record.name, "aria-current": record.name === namespace ? "page" : undefined },
        h("th", { scope: "row" }, h("code", { text: record.name })),
        h("td", { text: record.scenario }),
        h("td", { text: record.identities }),
        h("td", {}, lastUse(record)),
        h("td", { text: counts }),
        actions);
    }));
    $("namespace-count").textContent = `${listing.length - 1} of ${ctx.namespaceLimit ?? 1000}`;
    showCookie();
  }

  async function refresh() {
    const answer = await api("GET", "/__admin/namespaces", undefined, { unprefixed: true });
    listing = answer.namespaces;
    ctx.namespaceLimit = answer.limit;
    render();
  }

  showCookie();
  return { refresh };
}
