// The Journal section: what the backend sent, newest first, refreshed every second while "Live"
// is on; filters by endpoint, client, user and outcome; a "verify" box that checks a count or a
// sequence (POST /__admin/journal/verify) and lists the near misses when it fails.

import { api, ApiError } from "./api.js";
import { act, fillTable, h, time } from "./dom.js";

export function createJournal(ctx) {
  const form = document.getElementById("journal-filters");
  const tbody = document.querySelector("#journal-table tbody");
  const empty = document.getElementById("journal-empty");
  const live = document.getElementById("journal-live");

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    refresh();
  });
  for (const field of form.querySelectorAll("input[type=text], select")) {
    field.addEventListener("change", () => refresh());
  }
  document.getElementById("journal-clear").addEventListener("click", async (event) => {
    const done = await act("journal", event.currentTarget, () => api("DELETE", "/__admin/journal"), "Journal cleared.");
    if (done) await refresh();
  });

  const verifyForm = document.getElementById("journal-verify");
  const verifyResult = document.getElementById("journal-verify-result");
  verifyForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = document.getElementById("journal-verify-run");
    button.disabled = true;
    try {
      const outcome = await api("POST", "/__admin/journal/verify", verifyForm.elements.body.value);
      showVerification(outcome);
    } catch (error) {
      if (error instanceof ApiError && error.status === 422 && error.body) {
        showVerification(error.body);
      } else {
        const problems = (error.problems ?? []).map((p) => h("li", {}, h("code", { text: p.path }), ` ${p.reason}`));
        verifyResult.replaceChildren(h("p", { class: "result error", text: error.message }), problems.length ? h("ul", {}, ...problems) : "");
      }
    } finally {
      button.disabled = false;
    }
  });

  function showVerification(outcome) {
    const misses = (outcome.nearMisses ?? []).map((miss) => h("li", { "data-near-miss": miss.entry.id },
      h("span", {}, `${miss.entry.method ?? ""} ${miss.entry.endpoint} · ${miss.entry.outcome} · `, time(miss.entry.wallTime)),
      h("ul", {}, ...miss.differences.map((d) => h("li", {}, h("code", { text: d.field }),
        `: expected ${d.expected}, was ${d.actual ?? "nothing"}`)))));
    verifyResult.replaceChildren(
      h("p", { class: outcome.verified ? "result ok" : "result error", "data-verified": String(outcome.verified), text: `${outcome.verified ? "✓" : "✗"} ${outcome.message}` }),
      misses.length ? h("p", { class: "muted small", text: "Near misses (closest first):" }) : "",
      misses.length ? h("ol", { class: "near-misses" }, ...misses) : "");
  }

  function query() {
    const params = new URLSearchParams({ limit: "100" });
    for (const name of ["endpoint", "clientId", "user", "outcome"]) {
      const value = form.elements[name].value.trim();
      if (value) params.set(name, value);
    }
    return params;
  }

  function details(entry) {
    const parts = [];
    if (entry.grantType) parts.push(`grant ${entry.grantType}`);
    if (entry.clientSecretKeyId) parts.push(`secret kid ${entry.clientSecretKeyId} team ${entry.clientSecretTeamId ?? "?"}`);
    if (entry.notificationType) parts.push(`${entry.notificationType} attempt ${entry.attempt ?? "?"}`);
    if (entry.fault) parts.push(`fault ${entry.fault}`);
    if (entry.traceparent) parts.push(`trace ${entry.traceparent.split("-")[1] ?? entry.traceparent}`);
    parts.push(`${entry.latencyMilliseconds} ms`);
    const prints = Object.entries(entry.fingerprints ?? {}).map(([k, v]) => `${k} ${v}`);
    const issued = Object.entries(entry.issued ?? {}).map(([k, v]) => `${k} ${v}`);
    return h("td", {}, parts.join(" · "),
      entry.reason ? h("div", { class: "reason", text: entry.reason }) : "",
      prints.length ? h("div", { class: "muted small" }, "sent: ", prints.join(", ")) : "",
      issued.length ? h("div", { class: "muted small" }, "issued: ", issued.join(", ")) : "");
  }

  function row(entry) {
    const ok = entry.outcome === "ok";
    return h("tr", { "data-journal": entry.id, "data-endpoint": entry.endpoint },
      h("td", {}, time(entry.wallTime), h("div", { class: "muted small" }, "mock ", time(entry.at))),
      h("th", { scope: "row" }, entry.endpoint, entry.method ? h("div", { class: "muted small", text: entry.method }) : ""),
      h("td", {}, entry.clientId ? h("code", { class: "wrap", text: entry.clientId }) : ""),
      h("td", {}, entry.userKey ?? "", entry.sub ? h("div", { class: "muted small wrap", text: entry.sub }) : ""),
      h("td", {}, h("span", { class: `badge ${ok ? "delivered" : "failed"}`, text: entry.outcome }), entry.status ? ` ${entry.status}` : ""),
      details(entry));
  }

  let latest = 0;
  async function refresh() {
    const params = query();
    const asked = ++latest;
    const { entries } = await api("GET", `/__admin/journal?${params}`);
    if (asked !== latest) return; // a newer request (other filters) answers instead
    fillTable(tbody, JSON.stringify(entries.map((e) => e.id)) + params, () => entries.map(row));
    empty.hidden = entries.length > 0;
  }

  return { refresh, isLive: () => live.checked };
}
