"""The dashboard as a first-time QA user meets it: destructive actions ask first and say who will
be notified, a deletion that notifies nobody says how to make it notify, the outbox tells each
notification's state and errors in plain words within 1280 px, and each result shows beside the
control that caused it."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import answer_dialog, click, confirm_dialog, free_port, open_dashboard, patient, wait, wait_result


class HoldingReceiver:
    """A notification receiver that holds each POST until `release()`, then answers 200."""

    def __init__(self):
        self.arrived = threading.Event()
        self.released = threading.Event()
        arrived, released = self.arrived, self.released

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                arrived.set()
                released.wait(patient(20))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/held"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def release(self):
        self.released.set()

    def stop(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def note_beside(browser, focus_key):
    """The result note placed beside the control with `data-focus` = focus_key (or id)."""
    return browser.find_element(By.CSS_SELECTOR, f'.note[data-note-for="{focus_key}"]')


def assert_beside(browser, control_selector, focus_key):
    """The result note of the control follows it in the same container, on the same line or just
    under it. Read in one script, as the page may rebuild the rows at any refresh."""
    def placed(d):
        return d.execute_script("""
            const control = document.querySelector(arguments[0]);
            const note = document.querySelector(`.note[data-note-for="${CSS.escape(arguments[1])}"]`);
            if (!control || !note) return null;
            const a = control.getBoundingClientRect(), b = note.getBoundingClientRect();
            return {sibling: note.previousElementSibling === control, gap: Math.abs(a.top - b.top)};""",
            control_selector, focus_key)
    where = wait(browser, placed, f"the note of {focus_key} is shown")
    assert where["sibling"], f"the note of {focus_key} is not beside its control"
    assert where["gap"] < 60, f"the note is {where['gap']} px away from its control"


def test_destructive_actions_ask_first_and_say_who_is_notified(mock, receiver, browser):
    def notify_receiver(scenario):
        scenario["appGroups"][0]["notificationUrl"] = receiver.url
    mock.upload_scenario("notified", notify_receiver)
    mock.admin("POST", "/__admin/native/authorize", {"clientId": "com.example.app", "user": "maria"})
    open_dashboard(browser, mock)
    revoke = "[data-user=maria] button[aria-label='Revoke consent: maria in example']"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, revoke), "maria's consent is shown")

    def consent_status():
        users = mock.admin("GET", "/__admin/users")["users"]
        maria = next(u for u in users if u["key"] == "maria")
        return next(g for g in maria["appGroups"] if g["appGroupId"] == "example")["consent"]["status"]

    # Revoke consent: says what happens and who is notified; cancelled, nothing happens.
    click(browser, By.CSS_SELECTOR, revoke)
    text = confirm_dialog(browser)
    assert "consent-revoked" in text and receiver.url in text and "invalid_grant" in text
    answer_dialog(browser, go_ahead=False)
    assert consent_status() == "authorized"

    # Delete account: the same, naming the account-delete notification.
    click(browser, By.CSS_SELECTOR, "[data-user=maria] button[aria-label='Delete account: maria']")
    text = confirm_dialog(browser)
    assert "account-delete" in text and receiver.url in text
    answer_dialog(browser, go_ahead=False)
    assert not next(u for u in mock.admin("GET", "/__admin/users")["users"] if u["key"] == "maria")["accountDeleted"]

    # Switching with a standing consent: asks, names the consent; cancelled, the scenario stays.
    Select(browser.find_element(By.ID, "scenario-choice")).select_by_value("default")
    click(browser, By.ID, "scenario-switch-button")
    text = confirm_dialog(browser)
    assert "maria in example" in text and "Nobody is notified" in text
    answer_dialog(browser, go_ahead=False)
    assert mock.admin("GET", "/__admin/scenario")["name"] == "notified"

    # Reset: asks, then clears once confirmed; nobody was notified of any of it.
    click(browser, By.ID, "scenario-reset-button")
    text = confirm_dialog(browser)
    assert "1 standing consent" in text and "Nobody is notified" in text
    answer_dialog(browser)
    wait_result(browser, "scenario", "Session reset")
    assert mock.admin("GET", "/__admin/consents")["consents"] == []
    assert receiver.received == []
    assert_beside(browser, "#scenario-reset-button", "scenario-reset-button")

    # With no standing consent, a switch needs no confirmation.
    click(browser, By.ID, "scenario-switch-button")
    wait_result(browser, "scenario", 'Switched to "default"')
    assert browser.find_element(By.ID, "confirm-dialog").get_attribute("open") is None


def test_deleting_a_user_who_never_signed_in_says_nobody_is_notified_and_how_to_make_it_notify(mock, browser):
    open_dashboard(browser, mock)
    button = "[data-user=sam] button[aria-label='Delete account: sam']"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, button), "sam is shown")
    click(browser, By.CSS_SELECTOR, button)
    text = confirm_dialog(browser)
    assert "Nobody is notified" in text and "never signed in" in text
    assert "Sign in on a device" in text and "web flow" in text
    answer_dialog(browser)
    # The result, beside the button that caused it (the card is rebuilt; the note is put back).
    wait(browser, lambda d: "Nobody was notified" in note_beside(d, "delete:sam").text, "the result shows beside it")
    note = wait(browser, lambda d: note_beside(d, "delete:sam").text, "the note is read")
    assert "sign sam in first" in note and "web flow" in note
    assert_beside(browser, button, "delete:sam")
    assert mock.admin("GET", "/__admin/notifications")["notifications"] == []


def test_each_result_appears_next_to_the_control_that_caused_it(mock, receiver, browser):
    def notify_receiver(scenario):
        scenario["appGroups"][0]["notificationUrl"] = receiver.url
    mock.upload_scenario("notified", notify_receiver)
    mock.admin("POST", "/__admin/native/authorize", {"clientId": "com.example.app", "user": "maria"})
    open_dashboard(browser, mock)
    revoke = "[data-user=maria] button[aria-label='Revoke consent: maria in example']"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, revoke), "maria's consent is shown")
    click(browser, By.CSS_SELECTOR, revoke)
    confirm_dialog(browser)
    answer_dialog(browser)
    key = "revoke:maria in example"
    wait(browser, lambda d: "Revoked maria's consent for example. 1 notification queued." in note_beside(d, key).text,
         "the result shows beside the revoke button")
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, revoke).get_attribute("disabled") is not None,
         "the row shows the revoked consent")
    assert_beside(browser, revoke, key)
    # Redeliver, in the outbox row.
    redeliver = "#outbox button[aria-label^='Redeliver']"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, redeliver) and "delivered" in
         d.find_element(By.CSS_SELECTOR, "#outbox tbody tr").text, "the notification was delivered", seconds=10)
    click(browser, By.CSS_SELECTOR, redeliver)
    focus = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, redeliver).get_attribute("data-focus"), "its key")
    wait(browser, lambda d: "queued for delivery again" in note_beside(d, focus).text, "the result shows beside it")
    assert_beside(browser, redeliver, focus)


def test_the_outbox_tells_each_state_and_error_in_plain_words_within_1280_px(mock, browser):
    port = free_port()  # nothing listens there: the delivery is refused
    holding = HoldingReceiver()
    try:
        def edit(scenario):
            scenario["appGroups"][0]["notificationUrl"] = f"http://localhost:{port}/auth/apple/notifications/with/a/long/path/that/must/wrap"
            scenario["appGroups"][1]["notificationUrl"] = holding.url
            scenario["settings"] = {"notificationMaxAttempts": 2, "notificationRetryInitialMilliseconds": 600000,
                                   "notificationTimeoutMilliseconds": 15000}
        mock.upload_scenario("outbox", edit)
        for client in ["com.example.app", "com.otherstudio.app"]:
            mock.admin("POST", "/__admin/native/authorize", {"clientId": client, "user": "maria"})
        open_dashboard(browser, mock)

        # Refused: waiting for a retry at a time, the error in plain words, the raw text on request.
        refused = mock.admin("POST", "/__admin/events", {"type": "consent-revoked", "user": "maria", "appGroup": "example"})
        row = f"#outbox tr[data-notification='{refused['notificationIds'][0]}']"
        wait(browser, lambda d: "waiting for a retry at" in d.find_element(By.CSS_SELECTOR, row).text, "it waits for a retry",
             seconds=10)
        text = wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, row).text, "the row is read")
        assert f"connection refused by localhost:{port}" in text and "(after 1 attempt)" in text
        raw = browser.find_element(By.CSS_SELECTOR, f"{row} ol.attempts details code")
        assert not raw.is_displayed()
        click(browser, By.CSS_SELECTOR, f"{row} ol.attempts details summary")
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, f"{row} ol.attempts details code").is_displayed(),
             "the raw text shows on request")
        outbox = mock.admin("GET", "/__admin/notifications")["notifications"]
        stored = next(n for n in outbox if n["id"] == refused["notificationIds"][0])["attempts"][0]["outcome"]
        assert browser.find_element(By.CSS_SELECTOR, f"{row} ol.attempts details code").text == stored

        # Held by its receiver: delivering; then delivered once it answers.
        held = mock.admin("POST", "/__admin/events", {"type": "consent-revoked", "user": "maria", "appGroup": "other"})
        held_row = f"#outbox tr[data-notification='{held['notificationIds'][0]}']"
        assert holding.arrived.wait(patient(10))
        wait(browser, lambda d: "delivering (attempt 1)" in d.find_element(By.CSS_SELECTOR, held_row).text, "it shows delivering")
        holding.release()
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, held_row).get_attribute("data-status") == "delivered",
             "it shows delivered", seconds=10)
        assert "answered HTTP 200" in wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, held_row).text, "read")

        # Its last attempt refused too: failed after 2 attempts.
        click(browser, By.CSS_SELECTOR, f"{row} button[aria-label^='Redeliver']")
        wait(browser, lambda d: "failed after 2 attempts" in d.find_element(By.CSS_SELECTOR, row).text, "it failed",
             seconds=10)

        # 1280 px: the outbox fits, nothing scrolls sideways.
        assert browser.execute_script("return window.innerWidth") <= 1280
        fits = browser.execute_script("""
            const wrap = document.getElementById('outbox').closest('.table-wrap');
            return [wrap.scrollWidth, wrap.clientWidth, document.documentElement.scrollWidth, window.innerWidth];""")
        assert fits[0] <= fits[1] and fits[2] <= fits[3], f"horizontal scrolling: {fits}"
    finally:
        holding.stop()
