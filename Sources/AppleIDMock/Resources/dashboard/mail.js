// The Mail section: the private email relay's mailbox, newest first: every message your backend
// sent to a relay address (relayed to the user, or refused with Apple's reply and the reason) and
// every reply the user sent back. Shows how to turn SMTP on when it is off; with an outbound SMTP
// server, a reply button on relayed messages sends the user's answer through it.

import { api, inNamespace } from "./api.js";
import { act, fillTable, h, time } from "./dom.js";

export function createMail(ctx) {
  const form = document.getElementById("mail-filters");
  const tbody = document.querySelector("#mail-table tbody");
  const empty = document.getElementById("mail-empty");
  const status = document.getElementById("mail-status");

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    refresh(true);
  });
  for (const field of form.querySelectorAll("input[type=text], select")) {
    field.addEventListener("change", () => refresh(true));
  }
  document.getElementById("mail-clear").addEventListener("click", async (event) => {
    const done = await act("mail", event.currentTarget, () => api("DELETE", "/__admin/mail"), "Mailbox emptied.");
    if (done) await refresh(true);
  });

  function query() {
    const params = new URLSearchParams({ limit: "100" });
    for (const name of ["user", "team", "outcome"]) {
      const value = form.elements[name].value.trim();
      if (value) params.set(name, value);
    }
    return params;
  }

  function showStatus(smtp) {
    status.replaceChildren();
    if (smtp.listening) {
      status.append(
        "SMTP relay listening on port ", h("code", { text: String(smtp.port) }), " of this host.",
        smtp.forward ? h("span", {}, " Relayed messages are also sent to ", h("code", { text: smtp.forward }), ".") : "",
        smtp.outbound ? h("span", {}, " Replies go out through ", h("code", { text: smtp.outbound }), ".")
          : h("span", {}, " Replies need ", h("code", { text: "--smtp-outbound host:port" }), "."));
    } else {
      status.append(h("strong", { text: "SMTP is off. " }), "Start the server with ",
        h("code", { text: "--smtp-port 2525" }), " (or ", h("code", { text: "APPLE_ID_MOCK_SMTP_PORT=2525" }),
        "; 0 picks a free port) and send mail to a relay address from the Users section.");
    }
    status.classList.toggle("warning", !smtp.listening);
    const teams = ctx.scenario?.teams ?? [];
    if (teams.length) {
      status.append(h("span", { class: "senders" }, " Registered senders (",
        h("code", { text: "teams[].emailSources" }), "): ",
        teams.map((team) => {
          const sources = [...(team.emailSources?.domains ?? []), ...(team.emailSources?.addresses ?? [])];
          return `${team.name} (${team.teamId}): ${sources.length ? sources.join(", ") : "none"}`;
        }).join("; "), "."));
    }
  }

  function replyForm(entry) {
    const textId = `reply-text-${entry.id}`;
    const form = h("form", { class: "inline reply-form" },
      h("label", { for: textId, class: "visually-hidden", text: `Reply to ${entry.subject ?? "the message"}` }),
      h("input", { id: textId, name: "text", type: "text", required: "", placeholder: "Reply as the user…", autocomplete: "off" }),
      h("button", { type: "submit", "data-focus": `reply-${entry.id}`, text: "Reply as user" }));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const text = form.elements.text.value;
      const sent = await act("mail", form.querySelector("button"),
        () => api("POST", `/__admin/mail/${encodeURIComponent(entry.id)}/reply`, { text }),
        (reply) => `Reply sent from ${reply.envelopeSender} to ${reply.recipient}.`);
      if (sent) await refresh(true);
    });
    return form;
  }

  function row(entry, canReply) {
    const ok = entry.outcome === "relayed" || entry.outcome === "sent";
    const reply = entry.direction === "reply";
    return h("tr", { "data-mail": entry.id, "data-outcome": entry.outcome },
      h("td", {}, time(entry.wallTime), h("div", { class: "muted small" }, "mock ", time(entry.at))),
      h("td", {}, reply ? h("span", { class: "badge", text: "reply" }) : "",
        h("code", { class: "wrap", text: entry.envelopeSender || "<>" }),
        entry.from && !reply ? h("div", { class: "muted small wrap", text: `From: ${entry.from}` }) : ""),
      h("td", {}, h("code", { class: "wrap", text: entry.recipient }),
        entry.deliveredTo ? h("div", { class: "muted small" }, "→ ", entry.deliveredTo) : "",
        entry.userKey ? h("div", { class: "muted small" }, `${entry.userKey} · ${entry.teamId ?? ""}`) : ""),
      h("td", {}, entry.subject ?? ""),
      h("td", {}, h("span", { class: `badge ${ok ? "delivered" : "failed"}`, text: entry.outcome }),
        h("div", { class: "muted small wrap", text: entry.smtpReply }),
        entry.reason ? h("div", { class: "reason", text: entry.reason }) : "",
        entry.forward ? h("div", { class: "muted small" }, `forward: ${entry.forward}`) : ""),
      h("td", {}, entry.hasRaw ? h("a", { href: inNamespace(`/__admin/mail/${encodeURIComponent(entry.id)}/raw`), target: "_blank", rel: "noopener", text: "Raw message" }) : "",
        canReply && entry.direction === "inbound" && entry.outcome === "relayed" ? replyForm(entry) : ""));
  }

  let latest = 0;
  async function refresh(force = false) {
    // A reply being typed is not replaced by the periodic refresh.
    if (!force && tbody.contains(document.activeElement) && document.activeElement.tagName === "INPUT") return;
    const params = query();
    const asked = ++latest;
    const { smtp, entries } = await api("GET", `/__admin/mail?${params}`);
    if (asked !== latest) return;
    showStatus(smtp);
    const canReply = Boolean(smtp.outbound);
    fillTable(tbody, JSON.stringify(entries.map((e) => [e.id, e.outcome, e.forward])) + params + canReply,
      () => entries.map((entry) => row(entry, canReply)));
    empty.hidden = entries.length > 0;
  }

  return { refresh };
}
