// The Notifications section: the outbox, newest first, with every delivery attempt and its
// outcome; redeliver one.

import { api } from "./api.js";
import { act, fillTable, h, time } from "./dom.js";

export function createNotifications(ctx) {
  const tbody = document.querySelector("#outbox tbody");
  const empty = document.getElementById("outbox-empty");

  async function redeliver(button, record) {
    const done = await act("notifications", button, () => api("POST", `/__admin/notifications/${encodeURIComponent(record.id)}/redeliver`),
      `Notification ${record.id} (${record.type}) queued for delivery again.`);
    if (done) await refresh();
  }

  function row(record) {
    const attempts = record.attempts.length
      ? h("ol", { class: "attempts" }, record.attempts.map((attempt) => h("li", {},
        h("span", { class: `badge ${attempt.outcome === "delivered" ? "delivered" : "failed"}`, text: attempt.outcome }), " ",
        time(attempt.startedAt), ` · ${attempt.durationMilliseconds} ms`)))
      : h("span", { class: "muted", text: "none yet" });
    const button = h("button", { type: "button", disabled: record.status === "delivering" || record.status === "no_url", "aria-label": `Redeliver ${record.type} notification ${record.id}`, "data-focus": `redeliver:${record.id}` }, "Redeliver");
    button.addEventListener("click", () => redeliver(button, record));
    return h("tr", { "data-notification": record.id },
      h("td", {}, time(record.createdAt), h("div", { class: "muted small" }, h("code", { text: record.id }))),
      h("th", { scope: "row" }, record.type),
      h("td", {}, record.appGroupId, h("div", { class: "muted small" }, h("code", { class: "wrap", text: record.sub }))),
      h("td", {}, h("span", { class: `badge ${record.status}`, text: record.status }),
        record.url ? h("div", { class: "muted small wrap" }, record.url) : "",
        record.nextAttemptAt && record.status !== "delivered" ? h("div", { class: "muted small" }, "next ", time(record.nextAttemptAt)) : ""),
      h("td", {}, attempts),
      h("td", {}, button));
  }

  async function refresh() {
    const { notifications } = await api("GET", "/__admin/notifications");
    const newest = [...notifications].reverse();
    fillTable(tbody, JSON.stringify(newest), () => newest.map(row));
    empty.hidden = newest.length > 0;
  }

  return { refresh };
}
