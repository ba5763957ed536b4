// The Conformance section: backend conformance runs (POST /__admin/conformance/runs). A config
// editor prefilled with the example backend's config, configs saved by name in this browser, the
// runs of this server, and the report of the one picked: counts by verdict, then each result with
// what was sent, what came back, what the backend did at the mock, why it matters and a curl line
// that replays it. A run under way is read again every second until it finishes.

import { ApiError, api, inNamespace, token } from "./api.js";
import { act, confirmAction, describe, fillTable, h, keepFocus, noteBeside, report, showProblems, time } from "./dom.js";

const RUNS = "/__admin/conformance/runs";
const SAVED_KEY = "apple-id-mock.conformance-configs";

/** The verdicts, the ones that need a look first (ConformanceReport.Verdict's spellings). */
export const VERDICTS = ["FAIL", "INCONCLUSIVE", "WARNING", "ACCEPTED_RISK", "INFO", "PASS", "SKIPPED"];
/** The verdicts that fail a CI job. */
const FAILING = new Set(["FAIL", "INCONCLUSIVE"]);
const PROBLEMS = new Set(["FAIL", "INCONCLUSIVE", "WARNING"]);

/** docs/backend-conformance.md's config for the example backend on port 3000, for `clientId` (an
 *  app's bundle ID) and the Services ID of its web sign-in. */
export function exampleConfig(clientId = "com.example.app", servicesId = "com.example.web") {
  const config = { clientId };
  if (servicesId) config.otherClientIds = [servicesId];
  Object.assign(config, {
    native: {
      url: "http://127.0.0.1:3000/api/auth/apple/native",
      body: '{"identityToken": "{{identityToken}}", "rawNonce": {{rawNonce}}, "userIdentifier": "{{userIdentifier}}", "user": {{user}}}',
    },
    exchange: {
      url: "http://127.0.0.1:3000/api/auth/apple/code",
      body: '{"authorizationCode": "{{authorizationCode}}"}',
    },
    web: {
      start: "http://127.0.0.1:3000/login/apple/start",
      accepted: { status: "2xx", finalUrlContains: "/welcome" },
    },
    notifications: {
      url: "http://127.0.0.1:3000/api/apple/notifications",
      accepted: { status: "2xx" },
    },
    accepted: { status: "2xx", cookie: "session", userPointer: "/sub", emailVerifiedPointer: "/emailVerified" },
  });
  return JSON.stringify(config, null, 2);
}

/** The configs saved in this browser: `{name: {text, savedAt}}`. */
const saved = {
  all() {
    try {
      const value = JSON.parse(localStorage.getItem(SAVED_KEY) || "{}");
      return value && typeof value === "object" && !Array.isArray(value) ? value : {};
    } catch {
      return {};
    }
  },
  /** The config saved as `name`, if any (own members only: a name may be any text). */
  get(name) {
    const all = this.all();
    return Object.hasOwn(all, name) ? all[name] : undefined;
  },
  /** Saves `entry` as `name` (or deletes `name` when `entry` is undefined). */
  put(name, entry) {
    const others = Object.entries(this.all()).filter(([each]) => each !== name);
    const all = Object.fromEntries(entry === undefined ? others : [...others, [name, entry]]);
    localStorage.setItem(SAVED_KEY, JSON.stringify(all));
  },
};

/** "135 PASS · 3 WARNING …": the verdicts a summary counts, those that need a look first. */
function countsText(summary) {
  const parts = VERDICTS.filter((verdict) => summary?.[verdict]).map((verdict) => `${summary[verdict]} ${verdict}`);
  return parts.length ? parts.join(" · ") : "no results yet";
}

function total(summary) {
  return Object.values(summary ?? {}).reduce((sum, count) => sum + count, 0);
}

/** A case's key in the report: its path, id and variant. */
function keyOf(result) {
  return `${result.path}/${result.id}/${result.variant ?? ""}`;
}

function verdictBadge(verdict) {
  return h("span", { class: `badge verdict verdict-${verdict}`, text: verdict });
}

export function createConformance(ctx) {
  const $ = (id) => document.getElementById(id);
  const form = $("conformance-form");
  const editor = $("conformance-config");
  const problems = $("conformance-problems");
  const savedChoice = $("conformance-saved");
  const nameInput = $("conformance-name");
  const runsBody = document.querySelector("#conformance-runs tbody");
  const runsEmpty = $("conformance-runs-empty");
  const view = $("conformance-report");
  const casesBody = document.querySelector("#conformance-cases tbody");
  const pathChoice = $("conformance-path");

  /** The run whose report is shown, the report as last read, and the cases expanded in it. */
  let selected = null;
  let shown = null;
  const expanded = new Set();
  /** Verdicts hidden by the filter. */
  const hidden = new Set();
  let edited = false;
  let latest = 0;
  let runs = [];

  // The editor: the example until the user types or loads something.
  editor.addEventListener("input", () => {
    edited = true;
    editor.removeAttribute("aria-invalid");
  });
  $("conformance-example").addEventListener("click", (event) => {
    editor.value = example();
    edited = true;
    editor.removeAttribute("aria-invalid");
    showProblems(problems, null);
    noteBeside(event.currentTarget, "The example is back in the editor.");
  });

  function example() {
    // The active scenario's first app with a web sign-in beside it, as the docs' example has.
    const groups = ctx.scenario?.appGroups ?? [];
    const group = groups.find((g) => g.primaryBundleId && g.servicesIds?.length) ?? groups.find((g) => g.primaryBundleId);
    return group ? exampleConfig(group.primaryBundleId, group.servicesIds?.[0]?.identifier) : exampleConfig();
  }

  /** The editor's text as JSON, or an error shown beside it. */
  function parsedConfig() {
    try {
      const value = JSON.parse(editor.value);
      if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("expected a JSON object");
      editor.removeAttribute("aria-invalid");
      return value;
    } catch (error) {
      editor.setAttribute("aria-invalid", "true");
      throw new Error(`The config is not a JSON object: ${error.message}`);
    }
  }

  // Saved configs.
  function listSaved(choose) {
    const all = saved.all();
    const names = Object.keys(all).sort((a, b) => a.localeCompare(b));
    const current = choose ?? savedChoice.value;
    savedChoice.replaceChildren(
      h("option", { value: "" }, names.length ? "(choose a saved config)" : "(none saved yet)"),
      ...names.map((name) => h("option", { value: name }, name)));
    savedChoice.value = names.includes(current) ? current : "";
  }

  $("conformance-save").addEventListener("click", (event) => {
    const button = event.currentTarget;
    const name = nameInput.value.trim();
    try {
      if (!name) {
        nameInput.setAttribute("aria-invalid", "true");
        throw new Error("Name the config first (Save as).");
      }
      nameInput.removeAttribute("aria-invalid");
      parsedConfig();
      const replaced = saved.get(name) !== undefined;
      saved.put(name, { text: editor.value, savedAt: new Date().toISOString() });
      listSaved(name);
      showProblems(problems, null);
      const message = replaced ? `Saved "${name}" over the earlier one.` : `Saved "${name}" in this browser.`;
      report("conformance", message);
      noteBeside(button, message);
    } catch (error) {
      report("conformance", error.message, false);
      noteBeside(button, error.message, false);
    }
  });

  $("conformance-load").addEventListener("click", (event) => {
    const name = savedChoice.value;
    const entry = saved.get(name);
    if (!entry || typeof entry.text !== "string") {
      noteBeside(event.currentTarget, "Choose a saved config first.", false);
      return;
    }
    editor.value = entry.text;
    edited = true;
    nameInput.value = name;
    editor.removeAttribute("aria-invalid");
    showProblems(problems, null);
    const message = `Loaded "${name}" (saved ${entry.savedAt ? entry.savedAt.slice(0, 19).replace("T", " ") + "Z" : "earlier"}).`;
    report("conformance", message);
    noteBeside(event.currentTarget, message);
  });

  $("conformance-delete").addEventListener("click", async (event) => {
    const button = event.currentTarget;
    const name = savedChoice.value;
    if (!name) {
      noteBeside(button, "Choose a saved config first.", false);
      return;
    }
    const confirmed = await confirmAction({
      title: `Delete the saved config "${name}"?`,
      effects: ["It is removed from this browser's storage; the editor keeps what it shows.",
        "Runs started with it, and their reports, stay on the server."],
      notified: "",
      action: "Delete config",
    });
    if (!confirmed) return;
    try {
      saved.put(name, undefined);
    } catch (error) {
      noteBeside(button, `Not deleted: ${error.message}`, false);
      return;
    }
    listSaved("");
    report("conformance", `Deleted the saved config "${name}".`);
    noteBeside(button, `Deleted "${name}".`);
  });

  // Starting a run.
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = event.submitter ?? $("conformance-start");
    const started = await act("conformance", button, async () => {
      parsedConfig();
      try {
        return await api("POST", RUNS, editor.value);
      } catch (error) {
        if (error instanceof ApiError && error.code === "limit_reached") {
          throw new ApiError(error.status, {
            ...error.body, message: `Runs are at the limit: ${error.message}.`,
          });
        }
        throw error;
      }
    }, (run) => `Started run ${run.id}; its report is below and follows the run until it finishes.`, (error) => {
      showProblems(problems, error);
      if (error instanceof ApiError && error.status === 400) editor.setAttribute("aria-invalid", "true");
    });
    if (!started) return;
    select(started.id);
    await follow();
  });

  /** Reads the runs and the report shown now (after an action); a failure is reported, not thrown. */
  async function follow() {
    try {
      await refresh();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        document.dispatchEvent(new CustomEvent("needs-token", { detail: error.message }));
      }
      report("conformance", describe(error), false);
    }
  }

  // The runs.
  function runRow(run) {
    const current = run.id === selected;
    const show = h("button", {
      type: "button", class: current ? "" : "quiet", "aria-pressed": String(current),
      "aria-label": `Show the report of run ${run.id}`, "data-focus": `run:${run.id}`,
    }, current ? "Shown" : "Show report");
    show.addEventListener("click", async () => {
      select(run.id);
      await follow();
      if (!view.hidden) $("conformance-report-title").focus();
    });
    const fails = run.summary?.FAIL ?? 0;
    const failing = fails + (run.summary?.INCONCLUSIVE ?? 0);
    return h("tr", { "data-run": run.id, "data-state": run.state, "aria-current": current ? "true" : undefined },
      h("th", { scope: "row" }, h("code", { text: run.id }), h("div", { class: "muted small wrap", text: run.namespace })),
      h("td", {}, time(run.startedAt), run.finishedAt ? h("div", { class: "muted small" }, "→ ", time(run.finishedAt)) : ""),
      h("td", {}, h("span", { class: `badge ${run.state === "finished" ? (failing ? "failed" : "delivered") : "pending"}`, text: run.state })),
      h("td", { class: "run-summary" }, fails ? h("strong", { class: "error", text: `${fails} FAIL` }) : "",
        fails && total(run.summary) > fails ? ` · ${countsText({ ...run.summary, FAIL: 0 })}` : fails ? "" : countsText(run.summary),
        h("div", { class: "muted small", text: `${total(run.summary)} results` })),
      h("td", {}, show));
  }

  function select(id) {
    if (selected !== id) {
      selected = id;
      shown = null;
      expanded.clear();
      casesBody.dataset.key = "";
    }
    view.hidden = false;
  }

  // The report.
  function downloadLink(link, path, filename) {
    link.href = inNamespace(path);
    link.setAttribute("download", filename);
    link.dataset.path = path;
  }

  // With an admin token a plain link would go without it: the file is fetched with the token instead.
  for (const id of ["conformance-json", "conformance-junit"]) {
    $(id).addEventListener("click", async (event) => {
      const secret = token.get();
      if (!secret) return;
      event.preventDefault();
      const link = event.currentTarget;
      try {
        const response = await fetch(inNamespace(link.dataset.path), {
          headers: { Authorization: `Bearer ${secret}` }, cache: "no-store", credentials: "omit",
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const url = URL.createObjectURL(await response.blob());
        const save = h("a", { href: url, download: link.getAttribute("download"), hidden: true });
        document.body.append(save);
        save.click();
        save.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10000);
      } catch (error) {
        noteBeside(link, `Not downloaded: ${error.message}`, false);
      }
    });
  }

  function showSummary(result) {
    const summary = result.summary ?? {};
    $("conformance-summary").replaceChildren(...VERDICTS.map((verdict) => {
      const count = summary[verdict] ?? 0;
      const classes = ["verdict-count", `verdict-${verdict}`];
      if (!count) classes.push("zero");
      return h("li", { class: classes.join(" "), "data-verdict": verdict, "data-count": String(count) },
        h("span", { class: "count", text: String(count) }), " ", h("span", { class: "label", text: verdict }));
    }));
  }

  function showProgress(result) {
    const progress = $("conformance-progress");
    const count = result.cases?.length ?? 0;
    progress.replaceChildren();
    progress.dataset.state = result.state;
    if (result.state !== "finished") {
      const last = result.cases?.[count - 1];
      progress.append(h("span", { class: "badge pending", text: "running" }),
        ` ${count} result${count === 1 ? "" : "s"} so far`,
        last ? h("span", { class: "muted" }, ` (latest: ${last.path} `, h("code", { text: last.id }), ")") : "",
        "; the report follows the run.");
      return;
    }
    const failing = (result.summary?.FAIL ?? 0) + (result.summary?.INCONCLUSIVE ?? 0);
    const failed = failing > 0 || Boolean(result.error);
    progress.append(h("span", { class: `badge ${failed ? "failed" : "delivered"}`, text: "finished" }),
      ` ${count} results, `, time(result.finishedAt), ". ",
      h("strong", {
        class: failed ? "error" : "ok-text",
        text: failed
          ? `A CI job fails: ${[`${result.summary?.FAIL ?? 0} FAIL`, `${result.summary?.INCONCLUSIVE ?? 0} INCONCLUSIVE`, result.error ? "the run stopped with an error" : ""].filter(Boolean).join(", ")}.`
          : "A CI job passes: no FAIL and no INCONCLUSIVE.",
      }));
  }

  function showFilter(result) {
    const summary = result.summary ?? {};
    const boxes = $("conformance-verdicts");
    const key = JSON.stringify([summary, [...hidden]]);
    if (boxes.dataset.key === key) return;
    boxes.dataset.key = key;
    keepFocus(boxes, () => boxes.replaceChildren(...VERDICTS.map((verdict) => {
      const box = h("input", {
        type: "checkbox", name: "verdict", value: verdict, checked: !hidden.has(verdict), "data-focus": `verdict:${verdict}`,
      });
      box.addEventListener("change", () => {
        if (box.checked) hidden.delete(verdict);
        else hidden.add(verdict);
        render();
      });
      return h("label", { class: "check" }, box, `${verdict} (${summary[verdict] ?? 0})`);
    })));
  }

  pathChoice.addEventListener("change", () => render());
  $("conformance-filter").addEventListener("submit", (event) => event.preventDefault());
  $("conformance-problems-only").addEventListener("click", () => {
    hidden.clear();
    for (const verdict of VERDICTS) if (!PROBLEMS.has(verdict)) hidden.add(verdict);
    render();
  });
  $("conformance-all").addEventListener("click", () => {
    hidden.clear();
    pathChoice.value = "";
    render();
  });

  /** The pairs of a request's headers. */
  function headerList(headers) {
    const entries = Object.entries(headers ?? {});
    if (!entries.length) return h("p", { class: "muted small", text: "no headers" });
    return h("dl", { class: "pairs small" }, entries.flatMap(([name, value]) => [h("dt", { text: name }), h("dd", {}, h("code", { class: "wrap", text: value }))]));
  }

  function block(label, text) {
    return h("pre", { class: "wrap", tabindex: "0", "aria-label": label, text: text || "(empty)" });
  }

  async function copy(button, text, source) {
    try {
      if (!navigator.clipboard?.writeText) throw new Error("no clipboard");
      await navigator.clipboard.writeText(text);
      noteBeside(button, "Copied.");
      return;
    } catch {
      // Not a secure context, or no permission: select it, and copy the old way if allowed.
    }
    const selection = window.getSelection();
    const range = document.createRange();
    range.selectNodeContents(source);
    selection.removeAllRanges();
    selection.addRange(range);
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch {
      copied = false;
    }
    noteBeside(button, copied ? "Copied." : "Selected: press Ctrl+C (⌘C) to copy.", copied);
  }

  /** What a result's details show: why it matters, the request, the answer, the backend's calls at
   *  the mock and the curl line. */
  function details(result, index) {
    const why = h("div", { class: "case-why" }, h("h4", { text: "Why it matters" }), h("p", { text: result.why }),
      h("p", { class: "small" }, h("strong", { text: "Verdict: " }), `${result.verdict}: ${result.note}`));
    if (!result.request && !result.response) {
      return [why, h("p", { class: "muted", text: "Not sent: nothing went to the backend for this result." })];
    }
    const request = result.request;
    const response = result.response;
    const parts = [why];
    if (request) {
      parts.push(h("div", { class: "case-request" }, h("h4", { text: "Request sent" }),
        h("p", {}, h("code", { class: "wrap", text: `${request.method} ${request.url}` })),
        headerList(request.headers), block(`Body sent in ${result.id}`, request.body)));
    }
    if (response) {
      parts.push(h("div", { class: "case-response" }, h("h4", { text: "Answer" }),
        response.error
          ? h("p", { class: "error", text: `No answer: ${response.error}` })
          : [h("p", {}, `HTTP ${response.status ?? "?"}`, h("span", { class: "muted small", text: " (the body's first 2,000 characters)" })),
            block(`Body answered in ${result.id}`, response.body)]));
    }
    const journal = result.journal ?? [];
    parts.push(h("div", { class: "case-journal" }, h("h4", { text: "At the mock meanwhile" }),
      journal.length
        ? h("ul", { class: "plain" }, journal.map((note) => h("li", {}, h("code", { text: note.endpoint }), ` ${note.status ?? ""} ${note.outcome}`)))
        : h("p", { class: "muted small", text: "The backend called nothing at the mock." })));
    if (result.curl) {
      const line = h("pre", { class: "wrap curl", tabindex: "0", "aria-label": `curl line of ${result.id}`, text: result.curl });
      const button = h("button", { type: "button", class: "quiet", "data-focus": `copy:${index}`, "aria-label": `Copy the curl line of ${result.path} ${result.id}${result.variant ? ` ${result.variant}` : ""}` }, "Copy");
      button.addEventListener("click", () => copy(button, result.curl, line));
      parts.push(h("div", { class: "case-curl" }, h("div", { class: "inline" }, h("h4", { text: "Replay with curl" }), button), line));
    }
    return parts;
  }

  function caseRows(result, index) {
    const key = keyOf(result);
    const open = expanded.has(key);
    const detailsId = `conformance-case-${index}`;
    const name = `${result.path} ${result.id}${result.variant ? ` ${result.variant}` : ""}`;
    const toggle = h("button", {
      type: "button", class: "quiet", "aria-expanded": String(open), "aria-controls": detailsId,
      "aria-label": `Details of ${name}`, "data-focus": `case:${key}`,
    }, open ? "Hide" : "Details");
    const cell = h("td", { colspan: "7" });
    const extra = h("tr", { id: detailsId, class: "case-details", hidden: !open, "data-details-for": key }, cell);
    if (open) cell.append(h("div", { class: "case-grid" }, details(result, index)));
    toggle.addEventListener("click", () => {
      const opening = !expanded.has(key);
      if (opening) expanded.add(key);
      else expanded.delete(key);
      if (opening && !cell.firstChild) cell.append(h("div", { class: "case-grid" }, details(result, index)));
      extra.hidden = !opening;
      toggle.setAttribute("aria-expanded", String(opening));
      toggle.textContent = opening ? "Hide" : "Details";
    });
    const row = h("tr", {
      class: `case verdict-row-${result.verdict}`, "data-case": result.id, "data-path": result.path,
      "data-variant": result.variant ?? "", "data-verdict": result.verdict,
    },
    h("td", {}, verdictBadge(result.verdict)),
    h("td", {}, result.path),
    h("th", { scope: "row" }, h("code", { class: "wrap", text: result.id }), result.variant ? h("div", { class: "muted small wrap" }, "variant ", h("code", { text: result.variant })) : ""),
    h("td", {}, result.expected),
    h("td", {}, result.observed),
    h("td", { class: "case-note" }, result.note),
    h("td", {}, toggle));
    return [row, extra];
  }

  function render() {
    if (!shown) return;
    const result = shown;
    $("conformance-report-title").textContent = `Report of run ${result.id}`;
    $("conformance-cases-caption").textContent = `Results of run ${result.id}, in the order they were judged`;
    showProgress(result);
    const error = $("conformance-error");
    error.hidden = !result.error;
    error.textContent = result.error ? `The run stopped: ${result.error}` : "";
    showSummary(result);
    downloadLink($("conformance-json"), `${RUNS}/${encodeURIComponent(result.id)}`, `conformance-${result.id}.json`);
    downloadLink($("conformance-junit"), `${RUNS}/${encodeURIComponent(result.id)}/junit`, `conformance-${result.id}-junit.xml`);
    showFilter(result);
    const path = pathChoice.value;
    const cases = result.cases ?? [];
    const visible = cases.map((each, index) => [each, index])
      .filter(([each]) => !hidden.has(each.verdict) && (!path || each.path === path));
    const key = JSON.stringify([result.id, result.state, cases.length, [...hidden], path]);
    if (fillTable(casesBody, key, () => visible.flatMap(([each, index]) => caseRows(each, index)))) {
      // A details row is one cell across the table: no column title over it when rows stack.
      for (const cell of casesBody.querySelectorAll("tr.case-details > td")) delete cell.dataset.label;
    }
    $("conformance-shown").textContent = visible.length === cases.length
      ? `${cases.length} results shown.`
      : `${visible.length} of ${cases.length} results shown (filtered).`;
    $("conformance-cases-empty").hidden = visible.length > 0 || cases.length === 0;
  }

  async function refresh() {
    const asked = ++latest;
    const listing = await api("GET", RUNS);
    if (asked !== latest) return;
    runs = [...listing.runs].sort((a, b) => String(b.startedAt).localeCompare(String(a.startedAt)));
    fillTable(runsBody, JSON.stringify([runs, selected]), () => runs.map(runRow));
    runsEmpty.hidden = runs.length > 0;
    if (!edited && !editor.value) editor.value = example();
    if (!selected || shown?.state === "finished") return;
    let result;
    try {
      result = await api("GET", `${RUNS}/${encodeURIComponent(selected)}`);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      report("conformance", `Run ${selected} is no longer kept by the server (it keeps about the 20 newest, until a restart).`, false);
      view.hidden = true;
      casesBody.replaceChildren();
      casesBody.dataset.key = "";
      shown = null;
      selected = null;
      return;
    }
    if (asked !== latest || result.id !== selected) return;
    const finishing = shown && shown.state !== "finished" && result.state === "finished";
    shown = result;
    render();
    if (finishing) {
      report("conformance", `Run ${result.id} finished: ${countsText(result.summary)}.`, !(result.summary?.FAIL || result.summary?.INCONCLUSIVE || result.error));
    }
  }

  listSaved();
  window.addEventListener("storage", (event) => {
    if (event.key === SAVED_KEY) listSaved();
  });

  return {
    refresh,
    /** Whether a run is under way (the page then reads this section every second). */
    isBusy: () => runs.some((run) => run.state !== "finished") || (selected !== null && shown?.state !== "finished"),
  };
}
