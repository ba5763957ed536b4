// The Users section: each user with their identifiers, and per app group the consent (state,
// frozen scopes, first-authorization flag), credential state and relay forwarding; actions that
// act as the user would (revoke, delete the account, relay off/on, sign in on a device).

import { api } from "./api.js";
import { act, confirmAction, fillTable, h, time } from "./dom.js";

const STATUS_NAMES = { 0: "unsupported", 1: "unknown", 2: "likely real" };

/** The header and payload of a JWS, decoded (no verification: this is for reading). */
export function decodeJWT(token) {
  const part = (text) => {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  };
  const [header, payload] = token.split(".");
  return { header: part(header), payload: part(payload) };
}

export function createUsers(ctx) {
  const list = document.getElementById("user-list");
  let openDetails = new Set();
  const scopeChoice = h("fieldset", { class: "inline scopes" },
    h("legend", { text: "A device sign-in asks for" }),
    h("label", { class: "check" }, h("input", { type: "checkbox", id: "device-scope-name", checked: true }), " name"),
    h("label", { class: "check" }, h("input", { type: "checkbox", id: "device-scope-email", checked: true }), " email"));
  list.before(scopeChoice);

  async function lifecycle(button, body, describeDone, nobodyNotified = " No app group had a standing consent to notify.") {
    const done = await act("users", button, () => api("POST", "/__admin/events", body), (entry) => {
      const sent = entry.notificationIds?.length || 0;
      const notes = sent ? ` ${sent} notification${sent > 1 ? "s" : ""} queued.` : nobodyNotified;
      return entry.outcome === "applied" ? describeDone + notes : `${describeDone}: ${entry.outcome}`;
    });
    if (done) await ctx.refreshAll();
  }

  /** The app group `id` of the scenario, with its notification URL. */
  const scenarioGroup = (id) => ctx.scenario?.appGroups.find((g) => g.id === id);

  /** Who a notification for `groupIds` reaches: each group's URL, or that it has none. */
  function recipients(groupIds) {
    return groupIds.map((id) => {
      const url = scenarioGroup(id)?.notificationUrl;
      return url ? `${id} at ${url}` : `${id} (no notification URL: nothing is sent)`;
    }).join("; ");
  }

  /** How to have a user's deletion notify someone: sign them in first. */
  const howToNotify = (user) => `To have a notification sent, sign ${user.key} in first: "Sign in on a device" below, or through the web flow (/auth/authorize with a Services ID), then delete.`;

  async function deleteAccount(button, user) {
    const standing = user.appGroups.filter((g) => g.consent?.status === "authorized").map((g) => g.appGroupId);
    const confirmed = await confirmAction({
      title: `Delete ${user.key}'s Apple Account?`,
      effects: [
        "Every consent of this user ends: refresh tokens and codes stop working (invalid_grant).",
        "Relay forwarding stops, and the user cannot sign in again in this session.",
        "App groups the user never authorized stay notFound.",
      ],
      notified: standing.length
        ? `An account-delete notification goes to ${recipients(standing)}.`
        : `Nobody is notified: ${user.key} never signed in to any app group (no standing consent). ${howToNotify(user)}`,
      action: "Delete account",
    });
    if (!confirmed) return;
    await lifecycle(button, { type: "account-delete", user: user.key }, `Deleted ${user.key}'s Apple Account.`,
      ` Nobody was notified: ${user.key} had never signed in to any app group. ${howToNotify(user)}`);
  }

  async function revokeConsent(button, user, group) {
    const confirmed = await confirmAction({
      title: `Revoke ${user.key}'s consent for ${group.appGroupId}?`,
      effects: [
        "The user's refresh tokens and codes for this app group stop working (invalid_grant).",
        "The next sign-in is a first one again: the name and email are sent once more.",
      ],
      notified: `A consent-revoked notification goes to ${recipients([group.appGroupId])}.`,
      action: "Revoke consent",
    });
    if (!confirmed) return;
    await lifecycle(button, { type: "consent-revoked", user: user.key, appGroup: group.appGroupId },
      `Revoked ${user.key}'s consent for ${group.appGroupId}.`);
  }

  async function signInOnDevice(button, user, group) {
    const scenarioGroup = ctx.scenario?.appGroups.find((g) => g.id === group.appGroupId);
    const clientId = scenarioGroup?.primaryBundleId;
    const scopes = ["name", "email"].filter((s) => document.getElementById(`device-scope-${s}`).checked);
    const credential = await act("users", button, () => api("POST", "/__admin/native/authorize", { clientId, user: user.key, scopes }),
      `${user.key} signed in to ${clientId} on a device.`);
    if (!credential) return;
    showCredential(user, clientId, credential);
    await ctx.refreshAll();
  }

  /** The account modification extension's upgrade: no scopes, so no email or name in the credential. */
  async function upgradeOnDevice(button, user, group) {
    const clientId = ctx.scenario?.appGroups.find((g) => g.id === group.appGroupId)?.primaryBundleId;
    const credential = await act("users", button, () => api("POST", "/__admin/native/authorize", { flow: "upgrade", clientId, user: user.key }),
      `${user.key} upgraded an existing ${clientId} account to Sign in with Apple (no scopes).`);
    if (!credential) return;
    showCredential(user, clientId, credential, "upgraded an existing account in");
    await ctx.refreshAll();
  }

  function showCredential(user, clientId, credential, how = "signed in to") {
    const panel = document.getElementById("device");
    document.getElementById("device-title").textContent = `${user.key} ${how} ${clientId} on a device`;
    const pairs = document.getElementById("device-credential");
    const show = (value) => (value === null || value === undefined ? h("span", { class: "muted", text: "nil" }) : typeof value === "object" ? JSON.stringify(value) : String(value));
    pairs.replaceChildren(...[
      ["user", credential.user], ["state", credential.state], ["authorizedScopes", credential.authorizedScopes],
      ["email", credential.email], ["fullName", credential.fullName], ["realUserStatus", credential.realUserStatus],
      ["authorizationCode", credential.authorizationCode],
    ].flatMap(([name, value]) => [h("dt", { text: name }), h("dd", { class: "wrap" }, show(value))]));
    let decoded;
    try {
      const { header, payload } = decodeJWT(credential.identityToken);
      const times = ["iat", "exp", "auth_time"].filter((c) => typeof payload[c] === "number")
        .map((c) => `${c} = ${new Date(payload[c] * 1000).toISOString()}`).join("\n");
      decoded = `${JSON.stringify(header, null, 2)}\n.\n${JSON.stringify(payload, null, 2)}${times ? `\n\n${times}` : ""}`;
    } catch (error) {
      decoded = `not a JWS: ${error.message}`;
    }
    document.getElementById("device-token-decoded").textContent = decoded;
    document.getElementById("device-token").textContent = credential.identityToken;
    panel.hidden = false;
    panel.scrollIntoView({ block: "nearest" });
    document.getElementById("device-title").focus();
  }

  function groupRow(user, group) {
    const consent = group.consent;
    const label = `${user.key} in ${group.appGroupId}`;
    const actions = h("div", { class: "inline tight" });
    const signIn = h("button", { type: "button", disabled: user.accountDeleted, "aria-label": `Sign in on a device: ${label}`, "data-focus": `signin:${label}` }, "Sign in on a device");
    signIn.addEventListener("click", () => signInOnDevice(signIn, user, group));
    const upgrade = h("button", { type: "button", disabled: user.accountDeleted, title: "The credential an account modification extension gets (getSignInWithAppleUpgradeAuthorization): no scopes", "aria-label": `Upgrade on a device: ${label}`, "data-focus": `upgrade:${label}` }, "Upgrade account");
    upgrade.addEventListener("click", () => upgradeOnDevice(upgrade, user, group));
    actions.append(signIn, upgrade);
    // Kept (disabled) once revoked, so that the result of revoking stays beside it.
    if (consent) {
      const revoke = h("button", { type: "button", class: "danger", disabled: consent.status !== "authorized", "aria-label": `Revoke consent: ${label}`, "data-focus": `revoke:${label}` }, "Revoke consent");
      revoke.addEventListener("click", () => revokeConsent(revoke, user, group));
      actions.append(revoke);
    }
    if (group.relayForwarding !== undefined && group.relayForwarding !== null && consent?.status === "authorized" && !user.accountDeleted) {
      const on = group.relayForwarding;
      const relay = h("button", { type: "button", "aria-label": `${on ? "Relay off" : "Relay on"}: ${label}`, "data-focus": `relay:${label}` }, on ? "Relay off" : "Relay on");
      relay.addEventListener("click", () => lifecycle(relay, { type: on ? "email-disabled" : "email-enabled", user: user.key, appGroup: group.appGroupId },
        `Relay forwarding for ${user.key} in ${group.appGroupId} turned ${on ? "off" : "on"}.`));
      actions.append(relay);
    }
    const consentCell = consent
      ? h("td", {}, h("span", { class: `badge ${consent.status}`, text: consent.status }), " ",
        consent.scopes.length ? consent.scopes.join(" + ") : "no scopes",
        consent.hidesEmail && consent.scopes.includes("email") ? " · hides email" : "",
        h("div", { class: "muted small" }, consent.status === "revoked" ? ["revoked ", time(consent.revokedAt)] : ["since ", time(consent.authorizedAt)]))
      : h("td", { class: "muted" }, "never signed in");
    return h("tr", {},
      h("th", { scope: "row" }, group.appGroupId, h("div", { class: "muted small", text: group.teamId })),
      h("td", {}, h("code", { class: "wrap", text: group.sub }), h("div", { class: "muted small wrap", text: group.relayEmail })),
      consentCell,
      h("td", {}, group.firstAuthorization ? h("span", { class: "badge first", text: "next is first" }) : "no"),
      h("td", {}, h("span", { class: `badge ${group.credentialState}`, text: group.credentialState })),
      h("td", {}, group.relayForwarding === undefined || group.relayForwarding === null ? h("span", { class: "muted", text: "n/a" }) : group.relayForwarding ? "on" : h("strong", { text: "off" })),
      h("td", {}, actions));
  }

  function userCard(user) {
    const name = [user.name?.firstName, user.name?.lastName].filter(Boolean).join(" ");
    const remove = h("button", { type: "button", class: "danger", disabled: user.accountDeleted, "aria-label": `Delete account: ${user.key}`, "data-focus": `delete:${user.key}` }, "Delete account");
    remove.addEventListener("click", () => deleteAccount(remove, user));
    return h("article", { class: "user card", "aria-labelledby": `user-${user.key}`, "data-user": user.key },
      h("header", { class: "user-head" },
        h("div", {},
          h("h3", { id: `user-${user.key}` }, user.key, user.accountDeleted ? h("span", { class: "badge revoked", text: "account deleted" }) : ""),
          h("p", { class: "muted" }, [name || "no name", user.email || "no email", `real_user_status ${user.realUserStatus} (${STATUS_NAMES[user.realUserStatus] ?? "?"})`,
            user.hideEmail ? "hides email by default" : "shares email by default", user.managedAccount ? "managed account" : ""].filter(Boolean).join(" · "))),
        h("div", { class: "inline tight" }, remove)),
      h("details", { "data-user-details": user.key, open: openDetails.has(user.key) },
        h("summary", { text: "Identifiers per team" }),
        h("ul", { class: "plain" }, user.identities.map((identity) => h("li", {}, h("strong", { text: identity.teamId }), " sub ", h("code", { class: "wrap", text: identity.sub }), " · relay ", h("code", { class: "wrap", text: identity.relayEmail }))))),
      h("div", { class: "table-wrap" },
        h("table", {},
          h("caption", { class: "visually-hidden", text: `${user.key} per app group` }),
          h("thead", {}, h("tr", {}, ["App group", "sub · relay address", "Consent", "First authorization", "Credential state", "Relay forwarding", "Actions"].map((title) => h("th", { scope: "col", text: title })))),
          h("tbody", {}, user.appGroups.map((group) => groupRow(user, group))))));
  }

  async function refresh() {
    const view = await api("GET", "/__admin/users");
    ctx.users = view.users;
    fillTable(list, JSON.stringify(view.users), () => {
      openDetails = new Set([...list.querySelectorAll("details[open]")].map((d) => d.dataset.userDetails));
      return view.users.map(userCard);
    });
  }

  /** Hides the device credential: it belonged to a session that was reset. */
  function forgetDevice() {
    document.getElementById("device").hidden = true;
  }

  return { refresh, forgetDevice };
}
