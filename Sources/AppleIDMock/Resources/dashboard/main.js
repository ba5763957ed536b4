// The dashboard's entry point: builds each section (in the namespace of the page's URL, picked in
// the header), asks for the admin token when the server wants one, and keeps the page current
// (the journal, outbox and clock every second, and a conformance run while it is under way; the
// rest every few seconds) without reloading.

import { ApiError, token } from "./api.js";
import { describe } from "./dom.js";
import { createClock } from "./clock.js";
import { createConformance } from "./conformance.js";
import { createFaults } from "./faults.js";
import { createJournal } from "./journal.js";
import { createKeys } from "./keys.js";
import { createMail } from "./mail.js";
import { createNamespaces } from "./namespaces.js";
import { createNotifications } from "./notifications.js";
import { createScenario } from "./scenario.js";
import { createSettings } from "./settings.js";
import { createUsers } from "./users.js";

const ctx = {
  scenario: null, users: null, refreshAll,
  sessionCleared: () => { sections.users.forgetDevice(); },
};
const sections = {
  namespaces: createNamespaces(ctx),
  scenario: createScenario(ctx),
  users: createUsers(ctx),
  notifications: createNotifications(ctx),
  journal: createJournal(ctx),
  mail: createMail(ctx),
  faults: createFaults(ctx),
  conformance: createConformance(ctx),
  clock: createClock(ctx),
  keys: createKeys(ctx),
  settings: createSettings(ctx),
};

const dialog = document.getElementById("token-dialog");
const live = document.getElementById("glance-live");
const forget = document.getElementById("forget-token");
let locked = false;

/** Asks for the token after a 401: the stored one was refused, or there was none (`detail`). */
function tokenRefused(detail = "") {
  askForToken(token.get() ? "The server refused this token." : detail);
}

function askForToken(message) {
  locked = true;
  live.textContent = "waiting for the admin token";
  document.getElementById("token-error").textContent = message;
  if (!dialog.open) dialog.showModal();
  document.getElementById("token-input").focus();
}

document.addEventListener("needs-token", (event) => tokenRefused(event.detail ?? ""));

document.getElementById("token-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = document.getElementById("token-input");
  const value = input.value.trim();
  if (!value) return;
  token.set(value, document.getElementById("token-remember").checked);
  input.value = "";
  dialog.close();
  locked = false;
  await refreshAll(true);
});
dialog.addEventListener("cancel", (event) => event.preventDefault());

forget.addEventListener("click", () => {
  token.forget();
  forget.hidden = true;
  askForToken("The token was forgotten in this browser.");
});

/** Runs the given sections' refreshes; a 401 asks for the token, other failures show at the top. */
async function run(names, force = false) {
  if (locked) return;
  const results = await Promise.allSettled(names.map((name) => sections[name].refresh(force)));
  const failure = results.find((r) => r.status === "rejected")?.reason;
  if (failure instanceof ApiError && failure.status === 401) {
    tokenRefused();
    return;
  }
  forget.hidden = !token.get();
  live.textContent = failure ? `not current: ${describe(failure)}` : `live, ${new Date().toISOString().slice(11, 19)}Z`;
  live.classList.toggle("error", Boolean(failure));
}

/** Refreshes every section (after an action that may change any of them). */
async function refreshAll(force = false) {
  // The scenario first: other sections read its app groups.
  await run(["scenario"], force);
  await run(["namespaces", "users", "notifications", "journal", "mail", "faults", "conformance", "clock", "keys", "settings"], force);
}

let ticks = 0;
async function tick() {
  ticks += 1;
  if (!document.hidden) {
    const names = ["notifications", "clock"];
    if (sections.journal.isLive()) names.push("journal");
    // A conformance run under way: its report grows every second.
    if (sections.conformance.isBusy() || ticks % 3 === 0) names.push("conformance");
    if (ticks % 3 === 0) names.push("users", "faults", "keys", "scenario", "mail", "namespaces");
    if (ticks % 5 === 0) names.push("settings");
    await run(names);
  }
  setTimeout(tick, 1000);
}

refreshAll().then(() => setTimeout(tick, 1000));
