// The Clock section: the mock's now, advance, set, freeze and back to the wall clock.

import { api } from "./api.js";
import { act, duration, utc } from "./dom.js";

export function createClock(ctx) {
  const $ = (id) => document.getElementById(id);
  let clock = null;

  async function change(button, body, message) {
    const answer = await act("clock", button, () => api("POST", "/__admin/clock", body), (c) => `${message} The mock's clock reads ${utc(c.iso8601)}.`);
    if (answer) {
      show(answer);
      await ctx.refreshAll();
    }
  }

  $("clock-advance").addEventListener("submit", (event) => {
    event.preventDefault();
    const amount = Number($("clock-amount").value);
    const unit = Number($("clock-unit").value);
    const seconds = Math.round(amount * unit);
    const unitName = $("clock-unit").selectedOptions[0].textContent;
    change(event.submitter, { advanceSeconds: seconds }, `Moved the clock ${amount} ${unitName} ${seconds < 0 ? "back" : "forward"}.`);
  });

  $("clock-set").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = $("clock-instant").value;
    const withSeconds = value.length === 16 ? `${value}:00` : value;
    delete $("clock-instant").dataset.touched;
    change(event.submitter, { now: `${withSeconds}Z` }, `Set the clock to ${withSeconds.replace("T", " ")}Z.`);
  });

  $("clock-freeze").addEventListener("click", (event) => {
    const freeze = !clock?.frozen;
    change(event.currentTarget, { freeze }, freeze ? "Froze the clock: it moves only when told." : "The clock runs again from where it stood.");
  });

  $("clock-reset").addEventListener("click", (event) => {
    change(event.currentTarget, { reset: true }, "Back to the wall clock, running.");
  });

  function show(answer) {
    clock = answer;
    $("clock-now").textContent = utc(answer.iso8601);
    $("clock-offset").textContent = Math.abs(answer.offsetSeconds) < 1 ? "none" : duration(answer.offsetSeconds);
    $("clock-state").textContent = answer.frozen ? "frozen" : "running";
    $("clock-freeze").textContent = answer.frozen ? "Unfreeze" : "Freeze";
    $("glance-clock").textContent = `${utc(answer.iso8601)}${answer.frozen ? " (frozen)" : ""}`;
    const instant = $("clock-instant");
    if (document.activeElement !== instant && !instant.dataset.touched) instant.value = answer.iso8601.slice(0, 19);
  }
  $("clock-instant").addEventListener("input", (event) => { event.currentTarget.dataset.touched = "yes"; });

  async function refresh() {
    show(await api("GET", "/__admin/clock"));
  }

  return { refresh };
}
