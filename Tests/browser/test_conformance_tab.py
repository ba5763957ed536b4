"""The dashboard's Conformance tab: a config saved in the browser survives a reload and is loaded
back, a run against the example backend (examples/backend-conformance/backend.py) is started and
followed to its end with no FAIL, a result opens on what was sent, what came back, why it matters
and its curl line; the same backend with a planted bug (BUG=no-aud) shows aud-other-client as a
FAIL; a config the server refuses shows its problems, by JSON path, beside the editor, and one past the limit of
runs under way says so.

The backend runs as the example's own tests start it (examples/backend-conformance/backend_process.py,
which both suites import: a port of its own, JWKS_MIN_INTERVAL=0.2, so that a run takes a few
seconds), against this test's mock."""

import json
import socket
import sys

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import (
    ROOT, answer_dialog, click, confirm_dialog, free_port, open_dashboard, section_screenshot, wait, wait_result,
)

sys.path.insert(0, str(ROOT / "examples/backend-conformance"))
from backend_process import ConformanceBackend, run_config  # noqa: E402

EDITOR = "conformance-config"


@pytest.fixture
def backends(mock):
    """Starts backend.py (with a BUG, if given) against the mock; stops every one after the test."""
    started = []

    def start(bug=""):
        started.append(ConformanceBackend(mock.url, bug))
        return started[-1]

    yield start
    for backend in started:
        backend.stop()


def put_config(browser, config):
    """Types `config` (an object, or text) into the editor as a user pasting it would."""
    editor = browser.find_element(By.ID, EDITOR)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", editor)
    editor.clear()
    editor.send_keys(config if isinstance(config, str) else json.dumps(config))


def start_run(browser):
    """Clicks Start run; the run's id, once the page says it started."""
    click(browser, By.ID, "conformance-start")
    line = wait_result(browser, "conformance", "Started run", seconds=10).text
    return line.split("Started run ", 1)[1].split(";", 1)[0]


def wait_finished(browser, run_id):
    """Waits until the report shown is run `run_id`'s, finished (a run takes a few seconds)."""
    wait(browser, lambda d: d.find_element(By.ID, "conformance-report-title").text == f"Report of run {run_id}"
         and d.find_element(By.ID, "conformance-progress").get_attribute("data-state") == "finished",
         f"run {run_id} shows as finished", seconds=90)


def count(browser, verdict):
    return int(browser.find_element(By.CSS_SELECTOR, f"#conformance-summary [data-verdict={verdict}]")
               .get_attribute("data-count"))


def case_row(path, case_id, verdict=None):
    selector = f"#conformance-cases tr.case[data-path={path}][data-case='{case_id}']"
    return selector + (f"[data-verdict={verdict}]" if verdict else "")


def test_a_saved_config_runs_against_the_example_backend_with_no_fail(mock, backends, browser):
    backend = backends()
    open_dashboard(browser, mock)
    browser.get(mock.url + "/__admin/#conformance")
    # Prefilled with the docs' example for the active scenario's app and its web sign-in.
    example = json.loads(wait(browser, lambda d: d.find_element(By.ID, EDITOR).get_attribute("value"),
                              "the editor is prefilled"))
    assert example["clientId"] == "com.example.app" and example["otherClientIds"] == ["com.example.web"]
    assert example["native"]["url"] == "http://127.0.0.1:3000/api/auth/apple/native"
    assert browser.find_element(By.ID, "conformance-runs-empty").is_displayed()

    # Saved under a name, kept across a reload, loaded back.
    config = run_config(backend.port)
    put_config(browser, config)
    browser.find_element(By.ID, "conformance-name").send_keys("example backend")
    click(browser, By.ID, "conformance-save")
    wait_result(browser, "conformance", 'Saved "example backend" in this browser.')
    browser.refresh()
    prefilled = wait(browser, lambda d: d.find_element(By.ID, EDITOR).get_attribute("value"), "the editor is prefilled")
    assert json.loads(prefilled)["clientId"] == "com.example.app"
    assert str(backend.port) not in browser.find_element(By.ID, EDITOR).get_attribute("value")
    Select(browser.find_element(By.ID, "conformance-saved")).select_by_visible_text("example backend")
    click(browser, By.ID, "conformance-load")
    wait_result(browser, "conformance", 'Loaded "example backend"')
    assert json.loads(browser.find_element(By.ID, EDITOR).get_attribute("value")) == config

    # Started and followed: the report grows while it runs, and stops at its end.
    run_id = start_run(browser)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#conformance-runs tr[data-run='{run_id}']"),
         "the run is listed")
    wait_finished(browser, run_id)
    report = mock.admin("GET", f"/__admin/conformance/runs/{run_id}")
    assert report["state"] == "finished" and report["summary"]["FAIL"] == 0, report["summary"]
    assert count(browser, "FAIL") == 0 and count(browser, "INCONCLUSIVE") == 0
    assert count(browser, "PASS") == report["summary"]["PASS"] > 100
    assert "A CI job passes: no FAIL and no INCONCLUSIVE." in browser.find_element(By.ID, "conformance-progress").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#conformance-cases tr[data-verdict=FAIL]")
    rows = browser.find_elements(By.CSS_SELECTOR, "#conformance-cases tr.case")
    assert len(rows) == len(report["cases"])
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f"#conformance-runs tr[data-run='{run_id}']")
         .get_attribute("data-state") == "finished", "the runs list shows it finished")
    wait_result(browser, "conformance", f"Run {run_id} finished:")

    # A result opens on why it matters, what was sent and came back, and its curl line.
    case = next(c for c in report["cases"] if c["path"] == "native" and c["id"] == "aud-other-client")
    row = case_row("native", "aud-other-client", "PASS")
    toggle = f"{row} button[aria-expanded]"
    assert browser.find_element(By.CSS_SELECTOR, toggle).get_attribute("aria-expanded") == "false"
    click(browser, By.CSS_SELECTOR, toggle)
    details = browser.find_element(By.CSS_SELECTOR, "#conformance-cases tr.case-details[data-details-for='native/aud-other-client/']")
    wait(browser, lambda d: details.is_displayed(), "the result's details open")
    assert browser.find_element(By.CSS_SELECTOR, toggle).get_attribute("aria-expanded") == "true"
    text = details.text
    assert "Why it matters" in text and case["why"] in text
    assert case["request"]["url"] in text and f"HTTP {case['response']['status']}" in text
    curl = details.find_element(By.CSS_SELECTOR, "pre.curl").text
    assert curl.startswith("curl ") and curl == case["curl"]
    details.find_element(By.CSS_SELECTOR, ".case-curl button").click()
    wait(browser, lambda d: "Cop" in details.find_element(By.CSS_SELECTOR, ".case-curl .note").text
         or "Selected" in details.find_element(By.CSS_SELECTOR, ".case-curl .note").text, "the copy says what it did")
    # The page fits 1280 px with a result open.
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    # The report's downloads, and the filter by verdict.
    assert browser.find_element(By.ID, "conformance-json").get_attribute("href") == \
        f"{mock.url}/__admin/conformance/runs/{run_id}"
    assert browser.find_element(By.ID, "conformance-junit").get_attribute("href") == \
        f"{mock.url}/__admin/conformance/runs/{run_id}/junit"
    click(browser, By.ID, "conformance-problems-only")
    expected = sum(1 for c in report["cases"] if c["verdict"] in ("FAIL", "INCONCLUSIVE", "WARNING"))
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#conformance-cases tr.case")) == expected,
         "only the results that need a look are shown")
    assert {r.get_attribute("data-verdict") for r in browser.find_elements(By.CSS_SELECTOR, "#conformance-cases tr.case")} \
        <= {"WARNING"}
    click(browser, By.ID, "conformance-all")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#conformance-cases tr.case")) == len(report["cases"]),
         "every result is shown again")

    # The saved config is deleted, after asking.
    Select(browser.find_element(By.ID, "conformance-saved")).select_by_visible_text("example backend")
    click(browser, By.ID, "conformance-delete")
    assert "example backend" in confirm_dialog(browser)
    answer_dialog(browser)
    wait_result(browser, "conformance", 'Deleted the saved config "example backend".')
    assert "example backend" not in browser.find_element(By.ID, "conformance-saved").text
    assert browser.execute_script("return localStorage.getItem('apple-id-mock.conformance-configs')") == "{}"


def test_a_planted_bug_shows_as_a_fail(mock, backends, browser, screenshots):
    backend = backends("no-aud")
    open_dashboard(browser, mock)
    wait(browser, lambda d: d.find_element(By.ID, EDITOR).get_attribute("value"), "the editor is prefilled")
    put_config(browser, run_config(backend.port))
    run_id = start_run(browser)
    wait_finished(browser, run_id)
    report = mock.admin("GET", f"/__admin/conformance/runs/{run_id}")
    fails = {(c["path"], c["id"]) for c in report["cases"] if c["verdict"] == "FAIL"}
    paths = ("native", "exchange", "web", "notifications")
    assert fails == {(path, "aud-other-client") for path in paths}, report["summary"]
    assert count(browser, "FAIL") == 4
    assert "zero" not in browser.find_element(By.CSS_SELECTOR, "#conformance-summary [data-verdict=FAIL]") \
        .get_attribute("class")
    assert "A CI job fails: 4 FAIL" in browser.find_element(By.ID, "conformance-progress").text
    for path in paths:
        assert browser.find_elements(By.CSS_SELECTOR, case_row(path, "aud-other-client", "FAIL")), path
    # Only the FAILs: the four rows.
    for verdict in ("INCONCLUSIVE", "WARNING", "ACCEPTED_RISK", "INFO", "PASS", "SKIPPED"):
        click(browser, By.CSS_SELECTOR, f"#conformance-verdicts input[value={verdict}]")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#conformance-cases tr.case")) == 4, "only FAILs")
    click(browser, By.CSS_SELECTOR, f"{case_row('web', 'aud-other-client')} button[aria-expanded]")
    details = browser.find_element(By.CSS_SELECTOR, "#conformance-cases tr.case-details[data-details-for='web/aud-other-client/']")
    wait(browser, lambda d: details.is_displayed(), "the FAIL's details open")
    assert "accepted a credential Apple never sends" in details.text
    assert "curl " in details.find_element(By.CSS_SELECTOR, "pre.curl").text
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    section_screenshot(browser, "conformance-report", screenshots / "dashboard-conformance.png")
    row = browser.find_element(By.CSS_SELECTOR, f"#conformance-runs tr[data-run='{run_id}']").text
    assert "4 FAIL" in row


def test_a_config_the_server_refuses_shows_its_problems_beside_the_editor(mock, browser):
    open_dashboard(browser, mock)
    wait(browser, lambda d: d.find_element(By.ID, EDITOR).get_attribute("value"), "the editor is prefilled")
    problems = browser.find_element(By.ID, "conformance-problems")
    assert problems.get_attribute("aria-live") == "polite"

    # Not JSON: said before anything is sent.
    put_config(browser, '{"clientId": "com.example.app",')
    click(browser, By.ID, "conformance-start")
    wait(browser, lambda d: "The config is not a JSON object" in problems.text, "the parse error shows")
    assert browser.find_element(By.ID, EDITOR).get_attribute("aria-invalid") == "true"

    # The server's problems, each at its JSON path.
    config = run_config(free_port(), knownFindings=["no-such-case"])
    config["native"]["body"] = '{"rawNonce": "{{rawNonce}}"}'
    put_config(browser, config)
    assert browser.find_element(By.ID, EDITOR).get_attribute("aria-invalid") is None
    click(browser, By.ID, "conformance-start")
    wait(browser, lambda d: "$.native.body" in problems.text, "the server's problems show", seconds=10)
    assert "The server refused it:" in problems.text and "$.knownFindings[0]" in problems.text
    assert "HTTP 400" in browser.find_element(By.CSS_SELECTOR, '[data-result="conformance"]').text
    # A client the scenario lacks.
    put_config(browser, run_config(free_port(), clientId="com.nobody.app"))
    click(browser, By.ID, "conformance-start")
    wait(browser, lambda d: "$.clientId" in problems.text and "com.nobody.app" in problems.text,
         "the unknown client shows", seconds=10)
    assert mock.admin("GET", "/__admin/conformance/runs")["runs"] == []
    assert browser.find_element(By.ID, "conformance-runs-empty").is_displayed()


def test_a_run_past_the_limit_says_runs_are_at_the_limit(mock, browser):
    # A backend that takes connections and never answers: each run waits on its calibration.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)
    config = run_config(silent.getsockname()[1], cases=[])
    try:
        for _ in range(4):
            answer = mock.call("POST", "/__admin/conformance/runs", config)
            assert answer.status == 201, answer
        open_dashboard(browser, mock)
        wait(browser, lambda d: d.find_element(By.ID, EDITOR).get_attribute("value"), "the editor is prefilled")
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#conformance-runs tr[data-state=running]")) == 4,
             "the four runs under way are listed")
        put_config(browser, config)
        click(browser, By.ID, "conformance-start")
        problems = browser.find_element(By.ID, "conformance-problems")
        wait(browser, lambda d: "Runs are at the limit: 4 conformance runs are under way" in problems.text,
             "the limit shows beside the editor", seconds=10)
        assert "HTTP 409" in browser.find_element(By.CSS_SELECTOR, '[data-result="conformance"]').text
    finally:
        # Refused from now on: the runs end at once.
        silent.close()
