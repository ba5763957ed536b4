"""Namespaces in a real browser (Debian's chromium): two testers, each in a browser profile of
their own, share one mock and pick their namespace in the dashboard's header; what one changes
(scenario, clock, faults, journal) the other never sees. The "work in this namespace" cookie sends
the browser's unprefixed sign-ins to the picked namespace, and Sign in with Apple JS served under
/ns/{name}/ opens its popup under that prefix."""

import tempfile
import urllib.parse

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import (
    SCRIPT_PATH, ExampleApp, answer_dialog, app_result, app_status, click, confirm_dialog, curl_token,
    default_scenario, new_browser, open_dashboard, open_page, section_screenshot, switch_to_popup, wait, wait_result,
)

COOKIE = "apple_id_mock_namespace"


def browser_of_its_own():
    """A tester's own browser: a profile (user-data dir) of its own, so no cookie or storage is shared."""
    profile = tempfile.mkdtemp(prefix="apple-id-mock-profile-")
    return new_browser(arguments=[f"--user-data-dir={profile}"])


@pytest.fixture
def testers(mock):
    """Tester A's and tester B's browsers; they close before the server stops, and must not have
    logged errors (CSP violations, exceptions)."""
    drivers = [browser_of_its_own(), browser_of_its_own()]
    yield drivers
    errors = []
    for driver in drivers:
        errors += [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                   and "favicon" not in entry["message"]
                   and "the server responded with a status of" not in entry["message"]]
        driver.quit()
    assert not errors, f"the browsers logged errors: {errors}"


def header(browser, name):
    return browser.find_element(By.ID, f"glance-{name}").text


def journal(mock, prefix, endpoint):
    return mock.admin("GET", f"{prefix}/__admin/journal?endpoint={endpoint}")["entries"]


def upload_into(mock, prefix, name, edit):
    """Uploads scenarios/default.json, changed by `edit`, as `name` into the namespace under
    `prefix`, and switches that namespace to it."""
    scenario = default_scenario()
    edit(scenario)
    mock.admin("POST", f"{prefix}/__admin/scenarios?name={name}&activate=true", scenario)


def test_two_testers_in_two_namespaces_do_not_see_each_others_changes(mock, testers, screenshots):
    alice, bob = testers
    mock.admin("PUT", "/__admin/namespaces/team-b", {})

    # Tester A creates team-a from the header and is taken to its dashboard.
    open_dashboard(alice, mock.url + "/__admin/")
    assert header(alice, "namespace") == "default" and header(alice, "cookie") == "default"
    click(alice, By.CSS_SELECTOR, "#namespace-manage summary")
    alice.find_element(By.ID, "namespace-name").send_keys("team a!")
    click(alice, By.ID, "namespace-create-button")
    wait(alice, lambda d: "found \" \"" in d.find_element(By.ID, "namespace-problems").text,
         "the page refuses a badly formed name before asking the server")
    assert [n["name"] for n in mock.admin("GET", "/__admin/namespaces")["namespaces"]] == ["default", "team-b"]
    alice.find_element(By.ID, "namespace-name").clear()
    alice.find_element(By.ID, "namespace-name").send_keys("team-a")
    click(alice, By.ID, "namespace-create-button")
    wait(alice, lambda d: d.current_url == mock.url + "/ns/team-a/__admin/", "the page moved to team-a")
    wait(alice, lambda d: d.find_element(By.ID, "glance-live").text.startswith("live"), "team-a's page went live")
    assert header(alice, "namespace") == "team-a"
    assert mock.admin("GET", "/__admin/namespaces/team-a")["pathPrefix"] == "/ns/team-a"
    # The page's own files came from under the prefix.
    loaded = alice.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert mock.url + "/ns/team-a/__admin/dashboard/main.js" in loaded
    # Only the namespaces' own management is the default control plane's.
    assert not [url for url in loaded if url.startswith(mock.url + "/__admin/")
                and not url.startswith(mock.url + "/__admin/namespaces")]

    # Tester B picks team-b in the header.
    open_dashboard(bob, mock.url + "/__admin/")
    wait(bob, lambda d: d.find_elements(By.CSS_SELECTOR, "#namespace-choice option[value=team-b]"), "team-b is offered")
    Select(bob.find_element(By.ID, "namespace-choice")).select_by_value("team-b")
    click(bob, By.ID, "namespace-switch-button")
    wait(bob, lambda d: d.current_url == mock.url + "/ns/team-b/__admin/", "the page moved to team-b")
    wait(bob, lambda d: d.find_element(By.ID, "glance-live").text.startswith("live"), "team-b's page went live")
    assert header(bob, "namespace") == "team-b"

    # Tester A: her user's world changes: another scenario, a day later, Apple down.
    Select(alice.find_element(By.ID, "scenario-choice")).select_by_value("transfer")
    click(alice, By.CSS_SELECTOR, "#scenario-switch button[type=submit]")
    wait_result(alice, "scenario", 'Switched to "transfer"')
    Select(alice.find_element(By.ID, "clock-unit")).select_by_visible_text("days")
    click(alice, By.CSS_SELECTOR, "#clock-advance button")
    wait_result(alice, "clock", "Moved the clock 1 days forward")
    preset = "Apple down: 503 for the next 5 token calls"
    click(alice, By.XPATH, f"//button[normalize-space()='{preset}']")
    wait_result(alice, "faults", f"Added rule f1: {preset}")
    # Her backend's call fails in team-a; tester B's backend fetches keys in team-b.
    status_a, body_a = curl_token(mock, "com.example.web", "/ns/team-a/auth/token",
                                  grant_type="refresh_token", refresh_token="r.unknown")
    assert status_a == 503, body_a
    assert mock.call("GET", "/ns/team-b/auth/keys", token=False).status == 200
    status_b, _ = curl_token(mock, "com.example.web", "/ns/team-b/auth/token",
                             grant_type="refresh_token", refresh_token="r.unknown")
    assert status_b == 400

    # Tester B: a fault of her own (from the form), which tester A never sees.
    Select(bob.find_element(By.ID, "fault-endpoint")).select_by_visible_text("keys")
    bob.find_element(By.ID, "fault-latency").send_keys("5")
    click(bob, By.CSS_SELECTOR, "#fault-form button[type=submit]")
    wait_result(bob, "faults", "Added rule f1")

    # Each page shows its own world only.
    wait(alice, lambda d: header(d, "scenario") == "transfer", "A's header shows her scenario")
    wait(alice, lambda d: d.find_element(By.ID, "clock-offset").text.startswith("1 d"), "A's clock is a day ahead")
    wait(alice, lambda d: "HTTP 503" in d.find_element(By.CSS_SELECTOR, "#fault-table tr[data-fault=f1]").text,
         "A sees her fault")
    wait(alice, lambda d: d.find_elements(By.CSS_SELECTOR, "#journal-table tbody tr[data-endpoint=token]"),
         "A's journal has her token call", seconds=10)
    wait(bob, lambda d: "latency 5 ms" in d.find_element(By.CSS_SELECTOR, "#fault-table tr[data-fault=f1]").text.lower()
         or "5 ms" in d.find_element(By.CSS_SELECTOR, "#fault-table tr[data-fault=f1]").text,
         "B sees her fault")
    wait(bob, lambda d: d.find_elements(By.CSS_SELECTOR, "#journal-table tbody tr[data-endpoint=keys]"),
         "B's journal has her keys call", seconds=10)
    assert header(bob, "scenario") == "default"
    assert bob.find_element(By.ID, "clock-offset").text == "none"
    assert "HTTP 503" not in bob.find_element(By.ID, "fault-table").text
    assert "Apple down" not in bob.find_element(By.ID, "fault-table").text
    assert not bob.find_elements(By.CSS_SELECTOR, "#journal-table tbody tr[data-endpoint=token][data-outcome=http_503]")
    assert not alice.find_elements(By.CSS_SELECTOR, "#journal-table tbody tr[data-endpoint=keys]")
    assert "5 ms" not in alice.find_element(By.ID, "fault-table").text

    # The server agrees, and the default namespace was touched by neither.
    clock_a = mock.admin("GET", "/ns/team-a/__admin/clock")
    clock_b = mock.admin("GET", "/ns/team-b/__admin/clock")
    clock_default = mock.admin("GET", "/__admin/clock")
    assert clock_a["offsetSeconds"] >= 86400 and abs(clock_b["offsetSeconds"]) < 60
    assert abs(clock_default["offsetSeconds"]) < 60
    assert mock.admin("GET", "/ns/team-a/__admin/scenario")["name"] == "transfer"
    assert mock.admin("GET", "/ns/team-b/__admin/scenario")["name"] == "default"
    assert mock.admin("GET", "/__admin/scenario")["name"] == "default"
    assert [f["endpoint"] for f in mock.admin("GET", "/ns/team-a/__admin/faults")["faults"]] == ["token"]
    assert [f["endpoint"] for f in mock.admin("GET", "/ns/team-b/__admin/faults")["faults"]] == ["keys"]
    assert mock.admin("GET", "/__admin/faults")["faults"] == []
    assert journal(mock, "/ns/team-a", "keys") == [] and len(journal(mock, "/ns/team-a", "token")) == 1
    assert journal(mock, "/ns/team-b", "token")[0]["outcome"] == "invalid_grant"
    assert journal(mock, "", "token") == [] and journal(mock, "", "keys") == []

    # The picker lists every namespace with its last use; A's table marks hers.
    click(alice, By.CSS_SELECTOR, "#namespace-manage summary")
    wait(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#namespace-table tbody tr")) == 3, "three namespaces listed")
    # The bar re-renders every second: each check finds its elements again (wait ignores stale ones).
    def marks_hers(d):
        row = d.find_element(By.CSS_SELECTOR, "#namespace-table tr[data-namespace=team-a]")
        return row.get_attribute("aria-current") == "page" and "transfer" in row.text
    wait(alice, marks_hers, "A's row is marked as shown, with her scenario")
    wait(alice, lambda d: any(o.text.startswith("team-b, last used ")
                              for o in Select(d.find_element(By.ID, "namespace-choice")).options),
         "the picker lists team-b with its last use")
    section_screenshot(alice, "namespace-bar", screenshots / "dashboard-namespaces.png")

    # Tester B leaves his dashboard first: an open one refreshes every second, and a namespace that a
    # request names is made again on first use (so the check below raced his next refresh).
    bob.get("about:blank")
    # Tester A deletes team-b (asked first): tester B's world is gone, A's stays.
    click(alice, By.CSS_SELECTOR, "button[aria-label='Delete namespace team-b']")
    assert "Forgets everything in team-b" in confirm_dialog(alice)
    answer_dialog(alice)
    wait_result(alice, "namespaces", "Deleted team-b.")
    assert "team-b" not in [n["name"] for n in mock.admin("GET", "/__admin/namespaces")["namespaces"]]
    assert mock.admin("GET", "/ns/team-a/__admin/scenario")["name"] == "transfer"
    # The default namespace has no delete button.
    assert not alice.find_elements(By.CSS_SELECTOR, "button[aria-label='Delete namespace default']")


def test_work_in_this_namespace_sends_the_browsers_unprefixed_sign_ins_there(mock, receiver, testers):
    alice, bob = testers
    mock.admin("PUT", "/__admin/namespaces/team-a", {})
    # team-a's scenario knows a return URL (the receiver); the default's does not.
    upload_into(mock, "/ns/team-a", "qa", lambda s: s["appGroups"][0]["servicesIds"][0]["redirectUris"]
                .append(receiver.url))
    query = urllib.parse.urlencode({
        "client_id": "com.example.web", "redirect_uri": receiver.url, "response_type": "code",
        "response_mode": "form_post", "scope": "name email", "state": "st-1"})
    authorize = f"{mock.url}/auth/authorize?{query}"

    open_dashboard(alice, mock.url + "/ns/team-a/__admin/")
    assert header(alice, "cookie") == "default"
    stop = alice.find_element(By.ID, "namespace-stop")
    assert not stop.is_displayed()
    click(alice, By.ID, "namespace-work")
    wait(alice, lambda d: header(d, "cookie") == "team-a", "the header says the browser works in team-a")
    wait_result(alice, "namespaces", "sign-ins without a namespace go to team-a")
    cookie = alice.get_cookie(COOKIE)
    assert cookie["value"] == "team-a" and cookie["path"] == "/" and cookie["sameSite"] == "Lax"
    assert not alice.find_element(By.ID, "namespace-work").is_displayed()
    assert alice.find_element(By.ID, "namespace-stop").is_displayed()

    # A's unprefixed sign-in lands in team-a: its consent page, its journal, its code.
    alice.get(authorize)
    click(alice, By.CSS_SELECTOR, "button[value=continue]")
    wait(alice, lambda d: len(receiver.received) == 1, "the form_post reached the return URL")
    fields = dict(urllib.parse.parse_qsl(receiver.received[0]["body"]))
    assert fields["state"] == "st-1" and fields["code"]
    entries = journal(mock, "/ns/team-a", "authorize")
    assert entries and all(e["namespace"] == "team-a" for e in entries)
    assert journal(mock, "", "authorize") == []

    # B's browser has no cookie: the same URL is the default namespace's, which does not know the return URL.
    assert bob.get_cookie(COOKIE) is None
    bob.get(authorize)
    wait(bob, lambda d: "redirect_uri" in d.page_source or "invalid" in d.page_source.lower(),
         "the default namespace refuses the return URL")
    refused = journal(mock, "", "authorize")
    assert refused and all(e["outcome"] != "ok" and e["namespace"] == "default" for e in refused)
    assert len(journal(mock, "/ns/team-a", "authorize")) == len(entries)

    # Stop working in team-a: the cookie is gone, and on the default's page the header says so.
    open_dashboard(alice, mock.url + "/ns/team-a/__admin/")
    click(alice, By.ID, "namespace-stop")
    wait(alice, lambda d: header(d, "cookie") == "default", "the header says default again")
    assert alice.get_cookie(COOKIE) is None
    # Back, then "work in this namespace" on the default's page clears a cookie set elsewhere.
    click(alice, By.ID, "namespace-work")
    open_dashboard(alice, mock.url + "/__admin/")
    assert header(alice, "cookie") == "team-a" and header(alice, "namespace") == "default"
    click(alice, By.ID, "namespace-work")
    wait(alice, lambda d: header(d, "cookie") == "default", "the default's page cleared the cookie")
    assert alice.get_cookie(COOKIE) is None


def test_sign_in_with_apple_js_served_under_a_namespace_opens_its_popup_there(mock, browser):
    mock.admin("PUT", "/__admin/namespaces/team-a", {})
    app = ExampleApp(mock, script_url=mock.url + "/ns/team-a" + SCRIPT_PATH, mock_url=mock.url + "/ns/team-a")
    try:
        # The app's return URL in team-a's scenario too.
        upload_into(mock, "/ns/team-a", "web-popup", lambda s: s["appGroups"][0]["servicesIds"][0]
                    ["redirectUris"].append(app.redirect_uri))
        main = open_page(browser, app)
        browser.find_element(By.CSS_SELECTOR, "#appleid-signin [role=button]").click()
        switch_to_popup(browser, main)
        assert browser.current_url.startswith(mock.url + "/ns/team-a/auth/authorize?client_id=com.example.web&")
        browser.find_element(By.CSS_SELECTOR, "button[value=continue]").click()
        wait(browser, lambda d: len(d.window_handles) == 1, "the popup closed itself")
        browser.switch_to.window(main)
        assert app_status(browser, "Signed in") == "Signed in as Maria"
        assert app_result(browser)["first_authorization"] is True
        # The message came from the mock's origin (no path in an origin), once.
        assert browser.execute_script("return window.messageOrigins") == [mock.url]
        assert len(journal(mock, "/ns/team-a", "authorize")) >= 1
        assert [e["outcome"] for e in journal(mock, "/ns/team-a", "token")] == ["ok"]
        assert journal(mock, "", "authorize") == [] and journal(mock, "", "token") == []
    finally:
        app.stop()


def test_the_dashboard_under_a_prefix_without_its_trailing_slash_loads(mock, browser):
    open_dashboard(browser, mock.url + "/ns/team-c/__admin")
    assert header(browser, "namespace") == "team-c"
    assert mock.admin("GET", "/__admin/namespaces/team-c")["name"] == "team-c"


def test_the_picker_fits_a_phone(mock):
    mock.admin("PUT", "/__admin/namespaces/team-a", {})
    phone = new_browser(390, 844)
    try:
        open_dashboard(phone, mock.url + "/ns/team-a/__admin/")
        click(phone, By.CSS_SELECTOR, "#namespace-manage summary")
        wait(phone, lambda d: d.find_elements(By.CSS_SELECTOR, "#namespace-table tr[data-namespace=team-a]"),
             "the namespaces are listed")
        overflow = phone.execute_script("""
            const width = document.documentElement.clientWidth;
            return [...document.querySelectorAll('#namespace-bar *')].filter((el) =>
              !el.closest('.table-wrap') && el.getBoundingClientRect().right > width + 1
            ).map((el) => el.tagName + '.' + el.className);""")
        assert overflow == []
    finally:
        phone.quit()
