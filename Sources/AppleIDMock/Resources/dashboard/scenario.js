// The Scenario section: the active scenario, switch, reset, upload a file (problems shown with
// their JSON paths), and the app groups with their clients and transfers.

import { api } from "./api.js";
import { act, confirmAction, fillTable, h, time } from "./dom.js";

/** The standing consents the users view shows, as "user in group". */
function liveConsents(users) {
  return (users ?? []).flatMap((user) => user.appGroups.filter((g) => g.consent?.status === "authorized")
    .map((g) => `${user.key} in ${g.appGroupId}`));
}

/** What a reset or switch clears, and that Apple notifies nobody of it. */
function sessionEffects(users) {
  const live = liveConsents(users);
  return [
    live.length
      ? `${live.length} standing consent${live.length > 1 ? "s" : ""} end${live.length > 1 ? "" : "s"} (${live.join(", ")}): their refresh tokens and codes stop working (invalid_grant), and the next sign-in is a first one.`
      : "No consent is standing; codes and tokens still in use stop working (invalid_grant).",
    "Events, the notification outbox and transfers are cleared; deliveries under way are cut short.",
  ];
}

const NOBODY = "Nobody is notified: a reset is the mock's own, Apple sends no notification for it.";

export function createScenario(ctx) {
  const $ = (id) => document.getElementById(id);
  const choice = $("scenario-choice");
  let teams = [];
  let active = null;

  $("scenario-switch").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = choice.value;
    const submitter = event.submitter;
    if (liveConsents(ctx.users).length > 0) {
      const confirmed = await confirmAction({
        title: `Switch to "${name}"?`,
        effects: [...sessionEffects(ctx.users), "Settings patched at run time and fault rules belong to the scenario left behind."],
        notified: NOBODY.replace("a reset", "a switch"),
        action: "Switch scenario",
      });
      if (!confirmed) return;
    }
    const done = await act("scenario", submitter, () => api("PUT", "/__admin/scenario", { name }),
      `Switched to "${name}": consents, codes, tokens, events and notifications were cleared.`);
    if (done) {
      ctx.sessionCleared();
      await ctx.refreshAll(true);
    }
  });

  $("scenario-reset").addEventListener("submit", async (event) => {
    event.preventDefault();
    const submitter = event.submitter;
    const confirmed = await confirmAction({
      title: "Reset the session?",
      effects: [...sessionEffects(ctx.users), "Fault rules are cleared; settings, the clock, keys and the journal stay."],
      notified: NOBODY,
      action: "Reset",
    });
    if (!confirmed) return;
    const done = await act("scenario", submitter, () => api("POST", "/__admin/reset"),
      "Session reset: consents, codes, tokens, events, notifications and fault rules were cleared.");
    if (done) {
      ctx.sessionCleared();
      await ctx.refreshAll(true);
    }
  });

  const file = $("upload-file");
  const nameInput = $("upload-name");
  file.addEventListener("change", () => {
    const picked = file.files?.[0];
    if (picked && !nameInput.dataset.edited) {
      nameInput.value = picked.name.replace(/\.json$/i, "").replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 64);
    }
  });
  nameInput.addEventListener("input", () => { nameInput.dataset.edited = "yes"; });

  $("scenario-upload").addEventListener("submit", async (event) => {
    event.preventDefault();
    const picked = file.files?.[0];
    const name = nameInput.value.trim();
    const activate = $("upload-activate").checked;
    const problems = $("upload-problems");
    const done = await act("scenario", event.submitter, async () => {
      if (!picked) throw new Error("Choose a scenario file first.");
      if (picked.size > 1024 * 1024) throw new Error(`${picked.name} is ${picked.size} bytes; the limit is 1 MiB.`);
      const text = await picked.text();
      const query = new URLSearchParams({ name, activate: activate ? "true" : "false" });
      return api("POST", `/__admin/scenarios?${query}`, text);
    }, activate ? `Uploaded "${name}" and switched to it.` : `Uploaded "${name}".`, problems);
    if (done) {
      ctx.sessionCleared();
      await ctx.refreshAll(true);
    }
  });

  async function transfer(groupId, select, button) {
    const toTeam = select.value;
    const done = await act("scenario", button, () => api("POST", "/__admin/transfers", { appGroup: groupId, toTeam }),
      (view) => `Transferred ${groupId} to ${toTeam}: the migration window is open until ${new Date(view.windowEndsAt).toISOString()}.`);
    if (done) {
      ctx.sessionCleared();
      await ctx.refreshAll(true);
    }
  }

  function groupRow(group, transfers) {
    const moved = transfers.find((t) => t.appGroupId === group.id);
    const others = teams.filter((team) => team.teamId !== group.teamId);
    const select = h("select", { id: `transfer-${group.id}`, "aria-label": `Team to transfer ${group.id} to` },
      others.map((team) => h("option", { value: team.teamId }, `${team.name} (${team.teamId})`)));
    const button = h("button", { type: "button", disabled: others.length === 0 || Boolean(moved), "aria-label": `Transfer ${group.id}`, "data-focus": `transfer:${group.id}` }, "Transfer");
    button.addEventListener("click", () => transfer(group.id, select, button));
    const clients = [
      ...[group.primaryBundleId, ...group.bundleIds.filter((b) => b !== group.primaryBundleId)].map((id) => h("li", {}, h("code", { text: id }), " app")),
      ...group.servicesIds.map((s) => h("li", {}, h("code", { text: s.identifier }), " web")),
    ];
    return h("tr", {},
      h("th", { scope: "row" }, group.id),
      h("td", {}, group.teamId, moved ? h("div", { class: "muted small" }, `from ${moved.fromTeam} since `, time(moved.at)) : ""),
      h("td", {}, h("ul", { class: "plain" }, clients)),
      h("td", {}, group.notificationUrl ? h("code", { class: "wrap", text: group.notificationUrl }) : h("span", { class: "muted", text: "none" })),
      h("td", {}, moved ? h("span", { class: "muted", text: "transferred" }) : h("div", { class: "inline tight" }, select, button)));
  }

  async function refresh() {
    const [scenario, listing] = await Promise.all([api("GET", "/__admin/scenario"), api("GET", "/__admin/scenarios")]);
    ctx.scenario = scenario;
    teams = scenario.teams;
    $("scenario-name").textContent = scenario.name;
    $("scenario-description").textContent = scenario.description || "";
    $("scenario-source").textContent = scenario.source;
    $("glance-scenario").textContent = scenario.name;
    const options = listing.available.join("\n");
    if (choice.dataset.key !== options) {
      choice.dataset.key = options;
      choice.replaceChildren(...listing.available.map((name) => h("option", { value: name }, name)));
    }
    // Follow the active scenario only when it changes, so a choice being made is not undone.
    if (listing.active !== active) {
      active = listing.active;
      choice.value = active;
    }
    fillTable(document.querySelector("#app-groups tbody"), JSON.stringify([scenario.appGroups, scenario.transfers, teams]),
      () => scenario.appGroups.map((group) => groupRow(group, scenario.transfers)));
  }

  return { refresh };
}
