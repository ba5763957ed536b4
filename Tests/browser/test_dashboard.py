"""The dashboard at /__admin/ in a real browser (Debian's chromium): each section steers the mock
as the control plane's API would, and what the page shows is what the server holds."""

import json
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import (
    MockServer, answer_dialog, claims, click, confirm_dialog, curl_token, default_scenario, new_browser,
    open_dashboard, patient, section_screenshot, wait, wait_result,
)


def test_switching_the_scenario_in_the_page_changes_the_active_scenario(mock, browser):
    open_dashboard(browser, mock)
    assert browser.find_element(By.ID, "scenario-name").text == "default"
    Select(browser.find_element(By.ID, "scenario-choice")).select_by_value("transfer")
    click(browser, By.CSS_SELECTOR, "#scenario-switch button[type=submit]")
    wait_result(browser, "scenario", 'Switched to "transfer"')
    assert mock.admin("GET", "/__admin/scenario")["name"] == "transfer"
    wait(browser, lambda d: d.find_element(By.ID, "glance-scenario").text == "transfer", "the header shows it")


def test_a_scenario_file_is_uploaded_with_its_problems_shown_at_their_paths(mock, browser, tmp_path):
    scenario = default_scenario()
    broken = json.loads(json.dumps(scenario))
    broken["users"][1]["realUserStatus"] = 7
    broken["appGroups"][0]["servicesIds"][0]["redirectUris"][0] = "not a url"
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    scenario["description"] = "Uploaded from the dashboard"
    (tmp_path / "qa-night.json").write_text(json.dumps(scenario))
    open_dashboard(browser, mock)

    browser.find_element(By.ID, "upload-file").send_keys(str(tmp_path / "broken.json"))
    assert browser.find_element(By.ID, "upload-name").get_attribute("value") == "broken"
    click(browser, By.CSS_SELECTOR, "#scenario-upload button[type=submit]")
    problems = wait(browser, lambda d: d.find_element(By.ID, "upload-problems").text, "problems are listed")
    assert "$.users[1].realUserStatus" in problems
    assert "$.appGroups[0].servicesIds[0].redirectUris[0]" in problems
    assert "broken" not in mock.admin("GET", "/__admin/scenarios")["available"]

    browser.find_element(By.ID, "upload-file").send_keys(str(tmp_path / "qa-night.json"))
    click(browser, By.CSS_SELECTOR, "#scenario-upload button[type=submit]")
    wait_result(browser, "scenario", 'Uploaded "qa-night" and switched to it')
    assert browser.find_element(By.ID, "upload-problems").text == ""
    assert mock.admin("GET", "/__admin/scenario")["description"] == "Uploaded from the dashboard"


def test_deleting_an_account_in_the_page_notifies_the_app_group(mock, receiver, browser, screenshots):
    def notify_receiver(scenario):
        scenario["appGroups"][0]["notificationUrl"] = receiver.url
    mock.upload_scenario("notified", notify_receiver)
    open_dashboard(browser, mock)

    # Maria signs in on a device first: the credential and its decoded identity token are shown.
    row = "[data-user=maria] button[aria-label='Sign in on a device: maria in example']"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, row), "maria's row is shown")
    click(browser, By.CSS_SELECTOR, row)
    wait_result(browser, "users", "maria signed in to com.example.app on a device")
    decoded = browser.find_element(By.ID, "device-token-decoded").text
    assert '"iss": "https://appleid.apple.com"' in decoded and '"aud": "com.example.app"' in decoded
    assert browser.find_element(By.ID, "device-credential").text.count("maria.ruiz@example.org") == 1
    wait(browser, lambda d: "authorized" in d.find_element(By.CSS_SELECTOR, "[data-user=maria] tbody tr").text,
         "the consent shows as authorized")
    section_screenshot(browser, "users", screenshots / "dashboard-users.png")

    click(browser, By.CSS_SELECTOR, "[data-user=maria] button[aria-label='Delete account: maria']")
    assert receiver.url in confirm_dialog(browser)
    answer_dialog(browser)
    wait_result(browser, "users", "Deleted maria's Apple Account. 1 notification queued.")
    wait(browser, lambda d: "account deleted" in d.find_element(By.CSS_SELECTOR, "[data-user=maria] h3").text,
         "maria shows as deleted")
    # The outbox view shows it delivered, and the receiver has it.
    wait(browser, lambda d: any("account-delete" in r.text and "delivered" in r.text
                                for r in d.find_elements(By.CSS_SELECTOR, "#outbox tbody tr")),
         "the outbox view shows the delivered notification", seconds=10)
    assert len(receiver.received) == 1
    payload = json.loads(receiver.received[0]["body"])["payload"]
    events = json.loads(claims(payload)["events"])
    assert events["type"] == "account-delete"
    assert events["sub"] == mock.admin("GET", "/__admin/users")["users"][0]["appGroups"][0]["sub"]
    section_screenshot(browser, "notifications", screenshots / "dashboard-notifications.png")

    # Redeliver from the page: a second attempt reaches the receiver.
    click(browser, By.CSS_SELECTOR, "#outbox button[aria-label^='Redeliver']")
    wait_result(browser, "notifications", "queued for delivery again")
    wait(browser, lambda d: len(receiver.received) == 2, "the receiver got it again", seconds=10)


def test_upgrading_an_account_in_the_page_shows_a_credential_without_email_or_name(mock, browser):
    open_dashboard(browser, mock)
    row = "[data-user=maria] button[aria-label='Upgrade on a device: maria in example']"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, row), "maria's row is shown")
    click(browser, By.CSS_SELECTOR, row)
    wait_result(browser, "users", "maria upgraded an existing com.example.app account to Sign in with Apple")
    assert browser.find_element(By.ID, "device-title").text == "maria upgraded an existing account in com.example.app on a device"
    credential = browser.find_element(By.ID, "device-credential").text
    assert "maria.ruiz@example.org" not in credential and "Maria" not in credential
    decoded = browser.find_element(By.ID, "device-token-decoded").text
    assert '"aud": "com.example.app"' in decoded and '"email"' not in decoded
    wait(browser, lambda d: "no scopes" in d.find_element(By.CSS_SELECTOR, "[data-user=maria] tbody tr").text,
         "the consent shows no scopes")


def test_a_token_request_made_with_curl_appears_in_the_journal_without_a_reload(mock, browser, screenshots):
    open_dashboard(browser, mock)
    credential = mock.admin("POST", "/__admin/native/authorize", {"clientId": "com.example.app", "user": "sam"})
    # The page refreshes the journal while "Live": rather than pausing for a refresh to happen, a
    # first call (the keys) is the marker, and its row showing up proves the page is refreshing.
    assert mock.call("GET", "/auth/keys", token=False).status == 200
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#journal-table tbody tr[data-endpoint=keys]"),
         "the page shows a call made after it went live", seconds=10)
    status, body = curl_token(mock, "com.example.app", grant_type="authorization_code",
                              code=credential["authorizationCode"])
    assert status == 200, body
    started = time.monotonic()
    rows = "#journal-table tbody tr[data-endpoint=token]"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, rows), "the token call is in the journal")
    # The page refreshes the journal every second while "Live": the row shows within 2 s (times the
    # patience, on a loaded machine).
    assert time.monotonic() - started <= patient(2)
    row = browser.find_element(By.CSS_SELECTOR, rows).text
    assert "com.example.app" in row and "ok" in row and "sam" in row and "authorization_code" in row
    # Only fingerprints: the code and the secret never show.
    assert credential["authorizationCode"] not in browser.page_source
    section_screenshot(browser, "journal", screenshots / "dashboard-journal.png")

    # Filters: an outcome that matches nothing empties the view; clearing the filter brings it back.
    outcome = browser.find_element(By.ID, "journal-outcome")
    outcome.send_keys("invalid_grant", Keys.TAB)
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, rows), "the filter hides it")
    outcome.clear()
    outcome.send_keys(Keys.TAB)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, rows), "it is back")


def test_a_fault_preset_added_in_the_page_makes_the_next_token_call_fail_as_shown(mock, browser, screenshots):
    open_dashboard(browser, mock)
    preset = "Apple down: 503 for the next 5 token calls"
    click(browser, By.XPATH, f"//button[normalize-space()='{preset}']")
    wait_result(browser, "faults", f"Added rule f1: {preset}")
    rule = browser.find_element(By.CSS_SELECTOR, "#fault-table tr[data-fault=f1]").text
    assert "HTTP 503" in rule and "next 5 (5 left)" in rule

    status, body = curl_token(mock, "com.example.web", grant_type="refresh_token", refresh_token="r.unknown")
    assert status == 503 and body == "Service Temporarily Unavailable"
    wait(browser, lambda d: "next 5 (4 left)" in d.find_element(By.CSS_SELECTOR, "#fault-table tr[data-fault=f1]").text
         and "1 of 1" in d.find_element(By.CSS_SELECTOR, "#fault-table tr[data-fault=f1]").text,
         "the page counts the call it fired on")
    wait(browser, lambda d: any("http_503" in r.text and "fault f1" in r.text
                                for r in d.find_elements(By.CSS_SELECTOR, "#journal-table tbody tr")),
         "the journal names the rule")
    section_screenshot(browser, "faults", screenshots / "dashboard-faults.png")

    # A rule of one's own, refused with the field named, then cleared.
    browser.find_element(By.ID, "fault-status").send_keys("503")
    click(browser, By.ID, "fault-drop")
    click(browser, By.CSS_SELECTOR, "#fault-form button[type=submit]")
    wait(browser, lambda d: "$.drop" in d.find_element(By.ID, "fault-problems").text, "the problem is named")
    click(browser, By.ID, "faults-clear")
    wait_result(browser, "faults", "Cleared 1 rule")
    assert mock.admin("GET", "/__admin/faults")["faults"] == []
    status, _ = curl_token(mock, "com.example.web", grant_type="refresh_token", refresh_token="r.unknown")
    assert status == 400


def test_clock_keys_and_settings_are_steered_from_the_page(mock, browser):
    open_dashboard(browser, mock)
    # Clock: freeze, advance a day, run again.
    click(browser, By.ID, "clock-freeze")
    wait_result(browser, "clock", "Froze the clock")
    assert mock.admin("GET", "/__admin/clock")["frozen"] is True
    before = mock.admin("GET", "/__admin/clock")["now"]
    Select(browser.find_element(By.ID, "clock-unit")).select_by_visible_text("days")
    click(browser, By.CSS_SELECTOR, "#clock-advance button")
    wait_result(browser, "clock", "Moved the clock 1 days forward")
    assert mock.admin("GET", "/__admin/clock")["now"] == before + 86400
    click(browser, By.ID, "clock-freeze")
    wait_result(browser, "clock", "runs again")

    # Keys: rotate, then the new key signs and the bundled ones stay published.
    click(browser, By.CSS_SELECTOR, "#key-rotate button[type=submit]")
    wait_result(browser, "keys", "signs from now on")
    listing = mock.admin("GET", "/__admin/keys")
    new = next(k for k in listing["keys"] if k["origin"] == "generated")
    assert listing["signingKid"] == new["kid"]
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#key-table tr[data-kid='{new['kid']}']"), "the key is listed")
    click(browser, By.CSS_SELECTOR, f"button[aria-label='Unpublish {new['kid']}']")
    wait_result(browser, "keys", f"{new['kid']} left /auth/keys")
    assert new["kid"] not in [k["kid"] for k in mock.admin("GET", "/auth/keys")["keys"]]

    # Settings: a bad value is refused at its field; a good one is saved.
    field = browser.find_element(By.ID, "setting-idTokenLifetimeSeconds")
    field.clear()
    field.send_keys("0")
    click(browser, By.CSS_SELECTOR, "#settings-form button[type=submit]")
    wait(browser, lambda d: d.find_element(By.ID, "setting-idTokenLifetimeSeconds-error").text, "the field shows why")
    assert field.get_attribute("aria-invalid") == "true"
    field.clear()
    field.send_keys("600")
    Select(browser.find_element(By.ID, "setting-booleanClaimStyle")).select_by_value("string")
    click(browser, By.CSS_SELECTOR, "#settings-form button[type=submit]")
    wait_result(browser, "settings", "Saved")
    settings = mock.admin("GET", "/__admin/settings")
    assert settings["idTokenLifetimeSeconds"] == 600 and settings["booleanClaimStyle"] == "string"


def test_with_an_admin_token_the_page_works_only_once_the_token_is_entered():
    mock = MockServer("--admin-token", "qa-secret-1")
    browser = new_browser()
    try:
        browser.get(mock.url + "/__admin/")
        dialog = browser.find_element(By.ID, "token-dialog")
        wait(browser, lambda d: dialog.get_attribute("open") is not None, "the page asks for the token")
        assert browser.find_element(By.ID, "scenario-name").text == "…"
        assert mock.call("GET", "/__admin/scenario", token=False).status == 401

        browser.find_element(By.ID, "token-input").send_keys("wrong", Keys.ENTER)
        wait(browser, lambda d: "refused" in d.find_element(By.ID, "token-error").text, "a wrong token is refused")
        assert browser.find_element(By.ID, "scenario-name").text == "…"

        browser.find_element(By.ID, "token-input").send_keys("qa-secret-1", Keys.ENTER)
        wait(browser, lambda d: d.find_element(By.ID, "scenario-name").text == "default", "the page works")
        assert dialog.get_attribute("open") is None
        assert "qa-secret-1" not in browser.current_url
        # An action with the token: a reset from the page.
        click(browser, By.CSS_SELECTOR, "#scenario-reset button")
        confirm_dialog(browser)
        answer_dialog(browser)
        wait_result(browser, "scenario", "Session reset")
        # Asked once: a reload in the same tab does not ask again.
        browser.refresh()
        wait(browser, lambda d: d.find_element(By.ID, "glance-live").text.startswith("live"), "the page went live")
        assert browser.find_element(By.ID, "token-dialog").get_attribute("open") is None
        assert "qa-secret-1" not in browser.current_url
    finally:
        browser.quit()
        mock.stop()


def test_labelled_keyboard_reachable_and_readable_at_desktop_and_phone_width(mock, browser, screenshots):
    mock.admin("POST", "/__admin/native/authorize", {"clientId": "com.example.app", "user": "maria"})
    mock.admin("POST", "/__admin/faults", {"endpoint": "keys", "latencyMilliseconds": 2000})
    open_dashboard(browser, mock)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-user=maria]"), "users are shown")
    unlabelled = browser.execute_script("""
        return [...document.querySelectorAll('input, select, textarea, button')].filter((el) => {
          if (el.closest('dialog')) return false;
          const labelled = el.labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
          const text = el.tagName === 'BUTTON' && el.textContent.trim();
          return !(labelled || text);
        }).map((el) => el.outerHTML.slice(0, 120));""")
    assert unlabelled == []
    assert browser.execute_script("return document.querySelectorAll('[tabindex]:not([tabindex=\"0\"]):not([tabindex=\"-1\"])').length") == 0

    # Keyboard: Tab from the top reaches the skip link, the section links, then the scenario controls.
    browser.execute_script("window.scrollTo(0, 0); document.activeElement.blur()")
    reached = []
    for _ in range(16):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        active = browser.switch_to.active_element
        reached.append(active.get_attribute("id") or active.text)
    assert "Skip to content" in reached and "Users" in reached and "scenario-choice" in reached

    browser.save_screenshot(str(screenshots / "dashboard-1280x800.png"))
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    phone = new_browser(390, 844)
    try:
        open_dashboard(phone, mock)
        wait(phone, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-user=maria]"), "users are shown")
        overflow = phone.execute_script("""
            const width = document.documentElement.clientWidth;
            return [...document.querySelectorAll('main *, header *')].filter((el) =>
              !el.closest('.table-wrap') && el.getBoundingClientRect().right > width + 1
            ).map((el) => el.tagName + '.' + el.className);""")
        assert overflow == []
        phone.save_screenshot(str(screenshots / "dashboard-phone.png"))
    finally:
        phone.quit()
