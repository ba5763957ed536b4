"""Sign in with Apple JS against the mock in a real browser (Debian's chromium), driving the
example web app of examples/web-popup: its page loads the mock's appleid.auth.js, the button
opens the popup (`response_mode=web_message`), the popup posts the authorization to the page, and
the app's backend exchanges the code and verifies the id_token (signature, iss, aud, exp, nonce).

The app runs in this process on http://localhost:P (another site than the mock on
http://127.0.0.1:M, as an app and appleid.apple.com are), with its return URL registered in an
uploaded copy of the default scenario."""

import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import (
    ROOT, SCRIPT_PATH, ExampleApp, MockServer, app_result, app_status, free_port, new_browser, open_page, patient,
    switch_to_popup, wait, wait_until,
)

APPLE_SCRIPT = "https://appleid.cdn-apple.com" + SCRIPT_PATH


@pytest.fixture
def app(mock):
    example = ExampleApp(mock)
    yield example
    example.stop()


def sign_in_by_popup(browser, app, main, action="continue", screenshots=None):
    browser.find_element(By.CSS_SELECTOR, "#appleid-signin [role=button]").click()
    switch_to_popup(browser, main)
    if screenshots:
        browser.save_screenshot(str(screenshots / "web-popup-consent.png"))
    browser.find_element(By.CSS_SELECTOR, f"button[value={action}]").click()
    wait(browser, lambda d: len(d.window_handles) == 1, "the popup closed itself")
    browser.switch_to.window(main)


def test_popup_first_sign_in_brings_the_user_and_the_backend_verifies_it(mock, app, browser, screenshots):
    main = open_page(browser, app)
    button = browser.find_element(By.CSS_SELECTOR, "#appleid-signin [role=button]")
    assert button.get_attribute("aria-label") == "Sign in with Apple"
    assert button.value_of_css_property("background-color") == "rgba(0, 0, 0, 1)"
    button.screenshot(str(screenshots / "web-popup-button.png"))

    button.click()
    switch_to_popup(browser, main)
    popup_url = browser.current_url
    assert popup_url.startswith(mock.url + "/auth/authorize?client_id=com.example.web&")
    for part in ["response_mode=web_message", "response_type=code%20id_token", "scope=name%20email",
                 "m=12", "v=1.5.6", "frame_id="]:
        assert part in popup_url
    browser.save_screenshot(str(screenshots / "web-popup-consent.png"))
    browser.find_element(By.CSS_SELECTOR, "button[value=continue]").click()
    wait(browser, lambda d: len(d.window_handles) == 1, "the popup closed itself")
    browser.switch_to.window(main)

    assert app_status(browser, "Signed in") == "Signed in as Maria"
    signed_in = app_result(browser)
    assert signed_in["first_authorization"] is True
    assert signed_in["name"] == {"firstName": "Maria", "lastName": "Ruiz"}
    assert signed_in["email"] == "maria.ruiz@example.org"
    assert signed_in["nonce_checked"] and signed_in["refresh_token"]
    # The backend call after the popup is same-origin: the SameSite=Lax session cookie went with it.
    assert signed_in["session_cookie"] is True
    # The answer came from the mock's origin (the one that served the script), and only once.
    assert browser.execute_script("return window.messageOrigins") == [mock.url]
    browser.save_screenshot(str(screenshots / "web-popup-signed-in.png"))


def test_popup_second_sign_in_has_no_user(mock, app, browser):
    main = open_page(browser, app)
    sign_in_by_popup(browser, app, main)
    app_status(browser, "Signed in")
    assert app_result(browser)["first_authorization"] is True

    main = open_page(browser, app)
    sign_in_by_popup(browser, app, main)
    app_status(browser, "Signed in")
    second = app_result(browser)
    # Apple sends the name and email once; the app remembered them from the first time.
    assert second["first_authorization"] is False
    assert second["name"] == {"firstName": "Maria", "lastName": "Ruiz"}


def test_cancel_in_the_popup_rejects_with_user_cancelled_authorize(mock, app, browser):
    main = open_page(browser, app)
    sign_in_by_popup(browser, app, main, action="cancel")
    assert app_status(browser, "Sign-in failed") == "Sign-in failed: user_cancelled_authorize"


def test_closing_the_popup_by_hand_rejects_with_popup_closed_by_user(mock, app, browser):
    main = open_page(browser, app)
    browser.find_element(By.CSS_SELECTOR, "#appleid-signin [role=button]").click()
    switch_to_popup(browser, main)
    browser.close()
    browser.switch_to.window(main)
    assert app_status(browser, "Sign-in failed") == "Sign-in failed: popup_closed_by_user"


def test_a_second_sign_in_while_the_popup_is_open_replaces_the_first(mock, app, browser):
    main = open_page(browser, app)
    browser.execute_script(
        "window.first = AppleID.auth.signIn().then((data) => ({data}), (failure) => failure);")
    switch_to_popup(browser, main)
    first_url = browser.current_url
    browser.switch_to.window(main)
    browser.execute_script(
        "window.second = AppleID.auth.signIn().then((data) => ({data}), (failure) => failure);")
    first = browser.execute_async_script("window.first.then(arguments[0])")
    assert first == {"error": "user_trigger_new_signin_flow"}
    # The same popup carries the new request (a new frame_id).
    assert len(browser.window_handles) == 2
    switch_to_popup(browser, main)
    wait(browser, lambda d: d.current_url != first_url, "the popup loaded the second request")
    browser.find_element(By.CSS_SELECTOR, "button[value=continue]").click()
    wait(browser, lambda d: len(d.window_handles) == 1, "the popup closed itself")
    browser.switch_to.window(main)
    second = browser.execute_async_script("window.second.then(arguments[0])")
    assert second["data"]["authorization"]["code"].startswith("c")
    assert second["data"]["user"]["name"]["firstName"] == "Maria"
    assert app_status(browser, "Signed in") == "Signed in as Maria"


def test_a_blocked_popup_rejects_with_popup_blocked_by_browser(mock, app):
    # Chrome's popup blocker on (chromedriver turns it off), and signIn() called by a script
    # without a click: the browser refuses the window.
    driver = new_browser(block_popups=True)
    try:
        open_page(driver, app)
        outcome = driver.execute_async_script(
            "AppleID.auth.signIn().then((data) => ({data}), (failure) => failure).then(arguments[0]);")
        assert outcome == {"error": "popup_blocked_by_browser"}
        assert app_status(driver, "Sign-in failed") == "Sign-in failed: popup_blocked_by_browser"
        assert len(driver.window_handles) == 1
    finally:
        driver.quit()


def test_redirect_mode_answers_by_form_post_without_the_lax_cookie(mock, app, browser):
    open_page(browser, app, mode="redirect")
    browser.find_element(By.CSS_SELECTOR, "#appleid-signin [role=button]").click()
    wait(browser, lambda d: d.current_url.startswith(mock.url + "/auth/authorize?"), "the page went to the mock")
    assert "response_mode=form_post" in browser.current_url and "m=12" in browser.current_url
    assert "frame_id=" not in browser.current_url
    browser.find_element(By.CSS_SELECTOR, "button[value=continue]").click()
    wait(browser, lambda d: d.current_url == app.redirect_uri, "the form_post reached the app")
    assert app_status(browser, "Signed in") == "Signed in as Maria"
    signed_in = app_result(browser)
    assert signed_in["mode"] == "redirect" and signed_in["first_authorization"] is True
    # Pitfall 1: Apple's form_post is a cross-site POST; the Lax session cookie stays behind.
    assert signed_in["session_cookie"] is False


def test_a_page_on_another_site_signs_in_by_popup(mock):
    # The app as http://shop.example.test:P (a name of its own, not a secure context), the mock
    # on http://127.0.0.1:M: the popup posts to the app's origin, the app's fetch keeps its cookie.
    app = ExampleApp(mock, host="shop.example.test")
    driver = new_browser(arguments=["--host-resolver-rules=MAP shop.example.test 127.0.0.1",
                                    "--disable-features=HttpsUpgrades"])
    try:
        main = open_page(driver, app)
        assert driver.execute_script("return location.origin") == app.url
        assert driver.execute_script("return window.isSecureContext") is False
        sign_in_by_popup(driver, app, main)
        assert app_status(driver, "Signed in") == "Signed in as Maria"
        assert app_result(driver)["session_cookie"] is True
        assert driver.execute_script("return window.messageOrigins") == [mock.url]
    finally:
        driver.quit()
        app.stop()


def test_apples_exact_script_url_works_over_tls_and_answers_from_appleid_apple_com(monkeypatch):
    # The page keeps Apple's <script src="https://appleid.cdn-apple.com/...">; chromium resolves
    # both of Apple's names to the mock (--tls, bundled certificate) and trusts the test CA from an
    # NSS database of its own (certutil, from Debian's libnss3-tools).
    certutil = shutil.which("certutil")
    if not certutil:
        if os.environ.get("APPLE_ID_MOCK_REQUIRE_BROWSER") == "1":
            pytest.fail("certutil is needed: apt-get install libnss3-tools")
        pytest.skip("certutil is missing: apt-get install libnss3-tools")
    ca = str(ROOT / "keys/tls/ca.pem")
    monkeypatch.setenv("SSL_CERT_FILE", ca)  # for this test's own calls to the mock's control plane
    mock = MockServer("--tls")
    home = tempfile.mkdtemp(prefix="apple-id-mock-nss-")
    app = None
    driver = None
    try:
        nssdb = f"sql:{home}/.pki/nssdb"
        os.makedirs(f"{home}/.pki/nssdb")
        subprocess.run([certutil, "-d", nssdb, "-N", "--empty-password"], check=True)
        subprocess.run([certutil, "-d", nssdb, "-A", "-t", "C,,", "-n", "apple-id-mock test CA", "-i", ca], check=True)
        app = ExampleApp(mock, script_url=APPLE_SCRIPT, mock_url=f"https://localhost:{mock.port}", ca_bundle=ca)
        rules = f"MAP appleid.apple.com 127.0.0.1:{mock.port}, MAP appleid.cdn-apple.com 127.0.0.1:{mock.port}"
        driver = new_browser(arguments=[f"--host-resolver-rules={rules}"], environment={**os.environ, "HOME": home})
        main = open_page(driver, app)
        assert f'<script type="text/javascript" src="{APPLE_SCRIPT}"></script>' in driver.page_source
        driver.find_element(By.CSS_SELECTOR, "#appleid-signin [role=button]").click()
        switch_to_popup(driver, main)
        assert driver.current_url.startswith("https://appleid.apple.com/auth/authorize?client_id=com.example.web&")
        driver.find_element(By.CSS_SELECTOR, "button[value=continue]").click()
        wait(driver, lambda d: len(d.window_handles) == 1, "the popup closed itself")
        driver.switch_to.window(main)
        assert app_status(driver, "Signed in") == "Signed in as Maria"
        assert driver.execute_script("return window.messageOrigins") == ["https://appleid.apple.com"]
    finally:
        if driver:
            driver.quit()
        if app:
            app.stop()
        mock.stop()
        shutil.rmtree(home, ignore_errors=True)


def test_the_example_runs_as_its_readme_says(mock):
    # `python3 examples/web-popup/app.py`, pointed at this mock and a free port.
    port = free_port()
    environment = {**os.environ, "APPLE_ID_MOCK_URL": mock.url, "PORT": str(port), "PYTHONDONTWRITEBYTECODE": "1"}
    log = tempfile.TemporaryFile()
    process = subprocess.Popen([sys.executable, "examples/web-popup/app.py"], cwd=ROOT, env=environment,
                               stdout=log, stderr=subprocess.STDOUT)
    try:
        def answered():
            """The example's page once it answers; "exited" if it stopped first."""
            if process.poll() is not None:
                return "exited"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=patient(2)) as answer:
                    return answer.read().decode()
            except OSError:
                return None

        page = wait_until(answered, 20, interval=0.1)
        if not page or page == "exited":
            log.seek(0)
            pytest.fail("the example did not answer:\n" + log.read().decode())
        assert f'<script type="text/javascript" src="{mock.url}{SCRIPT_PATH}"></script>' in page
        assert '<div id="appleid-signin"' in page
        # The script the page names is there (`curl -sI …/appleid.auth.js`).
        script = mock.call("GET", SCRIPT_PATH, token=False)
        assert script.status == 200
        assert script.headers["Content-Type"] == "text/javascript; charset=utf-8"
    finally:
        # SIGKILL: a parent that ignores SIGTERM (swift test does) passes that on to the example.
        process.kill()
        process.wait()
        log.close()
