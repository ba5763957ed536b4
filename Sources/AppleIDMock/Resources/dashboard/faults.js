// The Faults section: presets for the outages teams rehearse most, a form for any rule, and the
// rules in force with how often they fired.

import { api } from "./api.js";
import { act, fillTable, h } from "./dom.js";

/** One-click rules: what QA asks for most. */
export const PRESETS = [
  { label: "Apple down: 503 for the next 5 token calls",
    rule: { endpoint: "token", status: 503, body: "Service Temporarily Unavailable", retryAfterSeconds: 30, times: 5 } },
  { label: "invalid_grant on the next refresh",
    rule: { endpoint: "token", grantType: "refresh_token", error: "invalid_grant", times: 1 } },
  { label: "2 s latency on keys", rule: { endpoint: "keys", latencyMilliseconds: 2000 } },
  { label: "Rate limited: 429 with Retry-After on the next token call",
    rule: { endpoint: "token", status: 429, retryAfterSeconds: 60, times: 1 } },
  { label: "invalid_client on every token call", rule: { endpoint: "token", error: "invalid_client" } },
  { label: "Drop the next token call without an answer", rule: { endpoint: "token", drop: true, times: 1 } },
  { label: "A truncated JWKS, once", rule: { endpoint: "keys", truncate: true, times: 1 } },
  { label: "Notifications: drop the next 3 delivery attempts", rule: { endpoint: "notifications", drop: true, times: 3 } },
  // A setting rather than a rule: undone in Settings (discoveryIssuer) or by a reset.
  { label: "Discovery issuer drift (June 2025): discovery says account.apple.com, tokens keep appleid.apple.com",
    settings: { discoveryIssuer: "https://account.apple.com" } },
];

/** What a rule does, in words. */
export function describeAction(rule) {
  const parts = [];
  if (rule.error) parts.push(`${rule.error}${rule.errorDescription ? ` ("${rule.errorDescription}")` : ""}`);
  if (rule.status) parts.push(`HTTP ${rule.status}`);
  if (rule.retryAfterSeconds !== undefined) parts.push(`Retry-After ${rule.retryAfterSeconds} s`);
  if (rule.latencyMilliseconds) parts.push(`${rule.latencyMilliseconds} ms latency`);
  if (rule.drop) parts.push("drops the connection");
  if (rule.truncate) parts.push("truncates the body");
  return parts.join(", ");
}

function describeScope(rule) {
  if (rule.times !== undefined) return `next ${rule.times} (${rule.remaining ?? 0} left)`;
  if (rule.fraction !== undefined) return `${Math.round(rule.fraction * 1000) / 10}% of calls, seed ${rule.seed ?? 0}`;
  return "until cleared";
}

export function createFaults(ctx) {
  const tbody = document.querySelector("#fault-table tbody");
  const empty = document.getElementById("faults-empty");
  const form = document.getElementById("fault-form");
  const problems = document.getElementById("fault-problems");

  async function add(button, rule, what) {
    const added = await act("faults", button, () => api("POST", "/__admin/faults", rule),
      (view) => `Added rule ${view.id}: ${what ?? `${describeAction(view)} on ${view.endpoint}, ${describeScope(view)}`}.`,
      what ? undefined : problems);
    if (added) await refresh();
    return added;
  }

  const presets = document.getElementById("fault-presets");
  for (const preset of PRESETS) {
    const button = h("button", { type: "button", class: "preset" }, preset.label);
    button.addEventListener("click", () => preset.settings
      ? act("faults", button, () => api("PATCH", "/__admin/settings", preset.settings),
          `Set ${Object.entries(preset.settings).map(([k, v]) => `${k} to ${v}`).join(", ")} (undo in Settings).`)
          .then((done) => done && ctx.refreshAll(true))
      : add(button, preset.rule, preset.label));
    presets.append(h("li", {}, button));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const rule = {};
    for (const element of form.elements) {
      if (!element.name) continue;
      if (element.type === "checkbox") {
        if (element.checked) rule[element.name] = true;
        continue;
      }
      const value = element.value.trim();
      if (!value) continue;
      if (element.type === "number") rule[element.name] = Number(value);
      else if (element.name === "body") {
        try {
          rule.body = JSON.parse(value);
        } catch {
          rule.body = value;
        }
      } else rule[element.name] = value;
    }
    if (await add(event.submitter, rule)) form.reset();
  });

  document.getElementById("faults-clear").addEventListener("click", async (event) => {
    const done = await act("faults", event.currentTarget, () => api("DELETE", "/__admin/faults"),
      (answer) => `Cleared ${answer.cleared} rule${answer.cleared === 1 ? "" : "s"}: Apple behaves again.`);
    if (done) await refresh();
  });

  function row(rule) {
    const remove = h("button", { type: "button", "aria-label": `Delete rule ${rule.id}`, "data-focus": `delete:${rule.id}` }, "Delete");
    remove.addEventListener("click", async () => {
      const done = await act("faults", remove, () => api("DELETE", `/__admin/faults/${encodeURIComponent(rule.id)}`), `Deleted rule ${rule.id}.`);
      if (done) await refresh();
    });
    const matches = [rule.endpoint, rule.grantType, rule.clientId].filter(Boolean).join(" · ");
    return h("tr", { "data-fault": rule.id },
      h("th", { scope: "row" }, rule.id),
      h("td", {}, matches),
      h("td", {}, describeAction(rule)),
      h("td", {}, describeScope(rule)),
      h("td", {}, `${rule.fired} of ${rule.matched}`),
      h("td", {}, remove));
  }

  async function refresh() {
    const { faults } = await api("GET", "/__admin/faults");
    fillTable(tbody, JSON.stringify(faults), () => faults.map(row));
    empty.hidden = faults.length > 0;
  }

  return { refresh };
}
