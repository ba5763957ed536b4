// Small DOM helpers: elements built from data with textContent only (never innerHTML), times in
// UTC, and one way to report what an action did or why it failed.

import { ApiError } from "./api.js";

/** Builds an element: `h("td", { class: "x", "aria-label": "y", onclick: f }, child, "text")`. */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      element.className = value;
    } else if (name === "text") {
      element.textContent = value;
    } else if (value === true) {
      element.setAttribute(name, "");
    } else {
      element.setAttribute(name, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** `2026-11-22 10:04:05Z` for an ISO 8601 string, epoch seconds or a Date. */
export function utc(value) {
  if (value === undefined || value === null || value === "") return "";
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

/** A `<time>` element showing `utc(value)`. */
export function time(value) {
  const text = utc(value);
  if (!text) return "";
  const iso = typeof value === "number" ? new Date(value * 1000).toISOString() : String(value);
  return h("time", { datetime: iso }, text);
}

/** Seconds as "3 h 5 min" (signed). */
export function duration(seconds) {
  const sign = seconds < 0 ? "−" : "";
  let rest = Math.round(Math.abs(seconds));
  if (rest < 60) return `${sign}${rest} s`;
  const parts = [];
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["min", 60], ["s", 1]]) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return sign + parts.join(" ");
}

const announcer = () => document.getElementById("announcer");

/** Shows what happened next to a section's controls and announces it to screen readers. */
export function report(section, message, ok = true) {
  // The line beside the controls is for the eye; the one live region speaks it.
  const line = document.querySelector(`[data-result="${section}"]`);
  if (line) {
    line.textContent = message;
    line.classList.toggle("error", !ok);
    line.classList.toggle("ok", ok);
  }
  const live = announcer();
  if (live) live.textContent = message;
}

/** Lists an error's problems (JSON path and reason) in `container`, or its message; empties it
 *  when there is no error. */
export function showProblems(container, error) {
  container.replaceChildren();
  if (!error) return;
  if (!(error instanceof ApiError) || error.problems.length === 0) {
    container.append(h("p", { class: "error", text: describe(error) }));
    return;
  }
  const list = h("ul", { class: "problem-list" });
  for (const problem of error.problems) {
    list.append(h("li", {}, h("code", { text: problem.path }), " ", problem.reason, problem.file && problem.file !== "request body" && problem.file !== "request" ? ` (${problem.file})` : ""));
  }
  if (error.moreProblems) list.append(h("li", { text: `… and ${error.moreProblems} more` }));
  container.append(h("p", { class: "error", text: "The server refused it:" }), list);
}

/** The message an error reports. */
export function describe(error) {
  if (error instanceof ApiError) {
    const prefix = error.status ? `HTTP ${error.status}` : "No answer";
    return `${prefix}: ${error.message}`;
  }
  return error?.message || String(error);
}

/** The last result shown beside each control, by its `data-focus` key, so that a note survives
 *  the table around it being rebuilt. */
const notes = new Map();

/** Shows `message` right beside `control` (after it, in the same container), replacing the note
 *  an earlier action left there. */
export function noteBeside(control, message, ok = true) {
  if (!control) return;
  const key = control.dataset.focus || control.id;
  if (key) notes.set(key, { message, ok });
  placeNote(control, message, ok);
}

function placeNote(control, message, ok) {
  const key = control.dataset.focus || control.id || "";
  let note = control.parentElement?.querySelector(`:scope > .note[data-note-for="${CSS.escape(key)}"]`);
  if (!note) {
    note = h("span", { class: "note", "data-note-for": key });
    control.after(note);
  }
  note.textContent = message;
  note.classList.toggle("error", !ok);
  note.classList.toggle("ok", ok);
}

/** Puts back the notes of the controls inside `container` after it was rebuilt. */
export function restoreNotes(container) {
  for (const control of container.querySelectorAll("[data-focus]")) {
    const note = notes.get(control.dataset.focus);
    if (note) placeNote(control, note.message, note.ok);
  }
}

const confirmDialog = () => document.getElementById("confirm-dialog");

/**
 * Asks before a destructive action: a modal that says what will happen (`effects`, one line
 * each) and who will be notified (`notified`), with `action` on the button that goes ahead.
 * Resolves true when confirmed, false when cancelled (Cancel, Escape).
 */
export function confirmAction({ title, effects = [], notified, action }) {
  const dialog = confirmDialog();
  if (!dialog) return Promise.resolve(true);
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-effects").replaceChildren(...effects.map((line) => h("li", {}, line)));
  document.getElementById("confirm-notified").textContent = notified || "";
  const yes = document.getElementById("confirm-yes");
  yes.textContent = action;
  return new Promise((resolve) => {
    dialog.returnValue = "";
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "confirm"), { once: true });
    dialog.showModal();
    document.getElementById("confirm-no").focus();
  });
}

/**
 * Runs an action for `section`: disables `button` while it runs, then reports `success(result)` or
 * the error, in the section's result line and beside `button`. `problems` (an element, or a function given the error or `null`) shows the error's
 * problems and clears them on success. A 401 asks for the admin token (the `needs-token` event).
 * Resolves with the result, or `undefined` when it failed.
 */
export async function act(section, button, action, success, problems) {
  const showing = typeof problems === "function" ? problems : problems ? (error) => showProblems(problems, error) : null;
  if (button) button.disabled = true;
  try {
    const result = await action();
    showing?.(null);
    const message = typeof success === "function" ? success(result) : success;
    report(section, message, true);
    noteBeside(button, message, true);
    return result;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      document.dispatchEvent(new CustomEvent("needs-token", { detail: error.message }));
    }
    report(section, describe(error), false);
    noteBeside(button, describe(error), false);
    showing?.(error);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

/** Replaces `container`'s content (a table body, or a list of tables) with what `build()` returns,
 *  only when `key` (the data it shows) changed: nothing is built for a refresh that brings nothing
 *  new, and focus and selection survive it. */
export function fillTable(container, key, build) {
  if (container.dataset.key === key) return false;
  container.dataset.key = key;
  keepFocus(container, () => container.replaceChildren(...build()));
  restoreNotes(container);
  const table = container.closest("table");
  for (const each of table ? [table] : container.querySelectorAll("table")) labelCells(each);
  return true;
}

/** Runs `replace` (which rebuilds `container`'s content) and gives the focus back to the control
 *  with the same `data-focus` key, if the focus was inside. */
export function keepFocus(container, replace) {
  const focused = container.contains(document.activeElement) ? document.activeElement?.dataset.focus : undefined;
  replace();
  if (focused) container.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
}

/** Gives each cell its column's title (`data-label`), which narrow screens show above the value
 *  when rows stack. */
export function labelCells(table) {
  const titles = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
  for (const row of table.querySelectorAll("tbody tr")) {
    [...row.children].forEach((cell, index) => {
      if (titles[index]) cell.dataset.label = titles[index];
    });
  }
}
