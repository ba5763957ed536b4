// The Keys section: the signing keys with what `/auth/keys` publishes; rotate, publish,
// unpublish, sign with, delete, restore the bundled set.

import { api } from "./api.js";
import { act, fillTable, h, time } from "./dom.js";

export function createKeys(ctx) {
  const tbody = document.querySelector("#key-table tbody");

  async function change(button, method, path, body, message) {
    const answer = await act("keys", button, () => api(method, path, body), message);
    if (answer) await ctx.refreshAll();
  }

  document.getElementById("key-rotate").addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { publish: document.getElementById("rotate-publish").checked };
    const grace = document.getElementById("rotate-grace").value.trim();
    if (grace) body.graceSeconds = Number(grace);
    change(event.submitter, "POST", "/__admin/keys/rotate", body,
      (answer) => `Rotated: ${answer.kid ?? answer.signingKid ?? "a new key"} signs from now on${body.publish ? "" : " (not published)"}.`);
  });

  document.getElementById("key-restore").addEventListener("submit", (event) => {
    event.preventDefault();
    change(event.submitter, "DELETE", "/__admin/keys", undefined, "Restored the bundled keys.");
  });

  function row(key) {
    const path = `/__admin/keys/${encodeURIComponent(key.kid)}`;
    const buttons = [];
    const button = (label, aria, onClick, extra = {}) => {
      const element = h("button", { type: "button", "aria-label": aria, "data-focus": aria, ...extra }, label);
      element.addEventListener("click", () => onClick(element));
      buttons.push(element);
    };
    // In a namespace, a shared kid is renamed first (copy on write): the answer lists the namespace's own kid instead.
    const unpublished = (answer) => answer?.keys?.some((k) => k.kid === key.kid)
      ? `${key.kid} left /auth/keys.`
      : `${key.kid} left this namespace's /auth/keys: the namespace now has a kid of its own for that key, unpublished (the namespaces that keep the shared kid still publish it).`;
    if (key.published) button("Unpublish", `Unpublish ${key.kid}`, (b) => change(b, "POST", `${path}/unpublish`, undefined, unpublished));
    else button("Publish", `Publish ${key.kid}`, (b) => change(b, "POST", `${path}/publish`, undefined, `${key.kid} is in /auth/keys.`));
    if (!key.signing) button("Sign with it", `Sign with it: ${key.kid}`, (b) => change(b, "POST", `${path}/sign`, undefined, `${key.kid} signs from now on${key.published ? "" : " (it is not published: backends that do not refetch on an unknown kid fail)"}.`));
    if (key.origin === "generated" && !key.signing) button("Delete", `Delete ${key.kid}`, (b) => change(b, "DELETE", path, undefined, `Deleted ${key.kid}.`), { class: "danger" });
    return h("tr", { "data-kid": key.kid },
      h("th", { scope: "row" }, h("code", { text: key.kid })),
      h("td", {}, key.origin),
      h("td", {}, key.published ? "yes" : h("strong", { text: "no" })),
      h("td", {}, key.signing ? h("span", { class: "badge authorized", text: "signing" }) : ""),
      h("td", {}, key.created ? time(key.created) : h("span", { class: "muted", text: "bundled" }), key.retiresAt ? h("div", { class: "muted small" }, "retires ", time(key.retiresAt)) : ""),
      h("td", {}, h("div", { class: "inline tight" }, buttons)));
  }

  async function refresh() {
    const listing = await api("GET", "/__admin/keys");
    document.getElementById("glance-kid").textContent = listing.signingKid;
    fillTable(tbody, JSON.stringify(listing), () => listing.keys.map(row));
  }

  return { refresh };
}
