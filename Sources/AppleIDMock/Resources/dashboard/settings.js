// The Settings section: a field per setting, typed by the OpenAPI document the server serves
// (enums as choices, booleans as checkboxes, limits on numbers). Only changed settings are sent;
// the server validates them as it does any PATCH, and each problem is shown at its field.

import { api } from "./api.js";
import { act, h, report, showProblems } from "./dom.js";

export function createSettings(ctx) {
  const container = document.getElementById("settings-fields");
  const problems = document.getElementById("settings-problems");
  let schema = null;
  let current = null;

  async function loadSchema() {
    if (schema !== null) return schema;
    try {
      const document = await api("GET", "/__admin/openapi.json");
      schema = document?.components?.schemas?.Settings?.properties ?? {};
      return schema;
    } catch {
      return {}; // asked again on the next refresh
    }
  }

  function field(name, value, spec) {
    const id = `setting-${name}`;
    const help = spec.description ? h("p", { class: "help", id: `${id}-help`, text: spec.description }) : null;
    const error = h("p", { class: "field-error", id: `${id}-error`, role: "alert" });
    const described = [help ? `${id}-help` : null, `${id}-error`].filter(Boolean).join(" ");
    let input;
    if (spec.type === "boolean" || typeof value === "boolean") {
      input = h("input", { type: "checkbox", id, name, checked: value === true, "aria-describedby": described });
      return h("div", { class: "setting check-setting" }, h("label", { class: "check", for: id }, input, ` ${name}`), help, error);
    }
    if (Array.isArray(spec.enum)) {
      input = h("select", { id, name, "aria-describedby": described }, spec.enum.map((option) => h("option", { value: option }, option)));
      input.value = value ?? "";
    } else if (spec.type === "integer" || spec.type === "number" || typeof value === "number") {
      input = h("input", { type: "number", id, name, step: spec.type === "integer" ? "1" : "any", min: spec.minimum, max: spec.maximum, value: value ?? "", "aria-describedby": described });
    } else if (value !== null && typeof value === "object") {
      input = h("textarea", { id, name, rows: "3", "aria-describedby": described }, JSON.stringify(value, null, 2));
    } else {
      input = h("input", { type: "text", id, name, value: value ?? "", autocomplete: "off", "aria-describedby": described });
    }
    return h("div", { class: "setting" }, h("label", { for: id, text: name }), input, help, error);
  }

  function read(element, original) {
    if (element.type === "checkbox") return element.checked;
    const text = element.value.trim();
    if (element.type === "number") return text === "" ? original : Number(text);
    if (element.tagName === "TEXTAREA") {
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    }
    return text === "" && (original === null || original === undefined) ? original : text;
  }

  function render(settings, properties) {
    current = settings;
    container.dataset.dirty = "";
    const names = [...new Set([...Object.keys(properties), ...Object.keys(settings)])].filter((n) => n in settings || n in properties);
    container.replaceChildren(...names.map((name) => field(name, settings[name], properties[name] ?? {})));
  }

  function markProblems(error) {
    for (const node of container.querySelectorAll(".field-error")) node.textContent = "";
    for (const node of container.querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
    for (const problem of error?.problems ?? []) {
      const name = problem.path.replace(/^\$\.?/, "").split(/[.[]/)[0];
      const input = document.getElementById(`setting-${name}`);
      if (!input) continue;
      input.setAttribute("aria-invalid", "true");
      document.getElementById(`setting-${name}-error`).textContent = problem.reason;
    }
  }

  document.getElementById("settings-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const patch = {};
    for (const element of container.querySelectorAll("input, select, textarea")) {
      const original = current?.[element.name];
      const value = read(element, original);
      if (JSON.stringify(value) !== JSON.stringify(original)) patch[element.name] = value;
    }
    const names = Object.keys(patch);
    if (names.length === 0) {
      report("settings", "Nothing changed.", true);
      return;
    }
    const saved = await act("settings", event.submitter, () => api("PATCH", "/__admin/settings", patch),
      `Saved ${names.join(", ")}.`, (error) => {
        showProblems(problems, error);
        markProblems(error);
      });
    if (saved) {
      render(saved, await loadSchema());
      await ctx.refreshAll();
    }
  });

  document.getElementById("settings-reload").addEventListener("click", async (event) => {
    const done = await act("settings", event.currentTarget, () => refresh(true), "Showing the settings in force.");
    if (done !== undefined) {
      showProblems(problems, null);
      markProblems(null);
    }
  });

  /** Re-renders only when the settings changed on the server and no field is being edited. */
  async function refresh(force = false) {
    const [settings, properties] = await Promise.all([api("GET", "/__admin/settings"), loadSchema()]);
    const editing = container.contains(document.activeElement) || container.dataset.dirty === "yes";
    if (force || (!editing && JSON.stringify(settings) !== JSON.stringify(current))) {
      render(settings, properties);
    }
    return true;
  }
  container.addEventListener("input", () => { container.dataset.dirty = "yes"; });
  container.addEventListener("change", () => { container.dataset.dirty = "yes"; });

  return { refresh };
}
