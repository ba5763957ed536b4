// The Notifications section: the outbox, newest first, each notification's state as it truly is
// (waiting for a retry at a time, delivering, delivered, failed after N attempts) and every
// delivery attempt in plain words, the raw error on request; redeliver one.

import { api } from "./api.js";
import { act, fillTable, h, time } from "./dom.js";

/** "1 attempt", "3 attempts". */
function attempts(count) {
  return `${count} attempt${count === 1 ? "" : "s"}`;
}

/** What a notification's state means now, in words, with the time of its next attempt. */
export function stateText(record) {
  const tried = record.attempts.length;
  switch (record.status) {
    case "pending":
      if (tried === 0) return ["waiting for its first attempt", record.nextAttemptAt ? [" at ", time(record.nextAttemptAt)] : ""];
      if (!record.nextAttemptAt) return [`queued for another attempt now (after ${attempts(tried)})`];
      return ["waiting for a retry at ", time(record.nextAttemptAt), ` (after ${attempts(tried)})`];
    case "delivering":
      return [`delivering (attempt ${tried + 1})`];
    case "delivered":
      return [tried > 1 ? `delivered after ${attempts(tried)}` : "delivered"];
    case "failed":
      return [`failed after ${attempts(tried)}`];
    case "no_url":
      return ["not sent: the app group has no notification URL"];
    default:
      return [record.status];
  }
}

export function createNotifications(ctx) {
  const tbody = document.querySelector("#outbox tbody");
  const empty = document.getElementById("outbox-empty");

  async function redeliver(button, record) {
    const done = await act("notifications", button, () => api("POST", `/__admin/notifications/${encodeURIComponent(record.id)}/redeliver`),
      `Notification ${record.id} (${record.type}) queued for delivery again.`);
    if (done) await refresh();
  }

  function attemptItem(record, attempt, index) {
    const delivered = attempt.outcome === "delivered";
    // The words are ours; the error as the HTTP client gave it is there on request.
    const raw = !delivered && attempt.summary !== attempt.outcome
      ? h("details", {}, h("summary", { text: "raw error", "aria-label": `Raw error of attempt ${index + 1} of ${record.id}` }), h("code", { text: attempt.outcome }))
      : "";
    return h("li", { "data-attempt": index + 1 },
      h("span", { class: `badge ${delivered ? "delivered" : "failed"}`, text: delivered ? "delivered" : "failed" }), " ",
      h("span", { class: "summary", text: attempt.summary ?? attempt.outcome }),
      h("div", { class: "muted small" }, time(attempt.startedAt), ` · ${attempt.durationMilliseconds} ms`),
      raw);
  }

  function row(record) {
    const list = record.attempts.length
      ? h("ol", { class: "attempts" }, record.attempts.map((attempt, index) => attemptItem(record, attempt, index)))
      : h("span", { class: "muted", text: "none yet" });
    const button = h("button", { type: "button", disabled: record.status === "delivering" || record.status === "no_url", "aria-label": `Redeliver ${record.type} notification ${record.id}`, "data-focus": `redeliver:${record.id}` }, "Redeliver");
    button.addEventListener("click", () => redeliver(button, record));
    return h("tr", { "data-notification": record.id, "data-status": record.status },
      h("td", {}, time(record.createdAt), h("div", { class: "muted small" }, h("code", { text: record.id }))),
      h("th", { scope: "row" }, record.type),
      h("td", {}, record.appGroupId, h("div", { class: "muted small" }, h("code", { class: "wrap", text: record.sub }))),
      h("td", {}, h("span", { class: `badge ${record.status}`, text: record.status }),
        h("div", { class: "state", "data-state": record.id }, stateText(record)),
        record.url ? h("div", { class: "muted small wrap" }, record.url) : ""),
      h("td", {}, list),
      h("td", {}, h("div", { class: "inline tight" }, button)));
  }

  async function refresh() {
    const { notifications } = await api("GET", "/__admin/notifications");
    const newest = [...notifications].reverse();
    fillTable(tbody, JSON.stringify(newest), () => newest.map(row));
    empty.hidden = newest.length > 0;
  }

  return { refresh };
}
