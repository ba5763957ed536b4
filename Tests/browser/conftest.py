"""Fixtures and helpers of the browser tests.

A real `apple-id-mock serve` (the shared launcher of Tests/pyharness: APPLE_ID_MOCK_BINARY, else the
debug build; APPLE_ID_MOCK_* kept out of its environment), a notification receiver, and Debian's
chromium driven by Debian's chromedriver through Selenium. Nothing is downloaded: Selenium Manager
is kept offline and pointed at the system driver. The helpers the test modules share are here: the
dashboard's (open it, click, read a section's result, answer its confirmations), the web-popup
example app's, and `wait`, whose deadline is the harness's (scaled by APPLE_ID_MOCK_TEST_PATIENCE).
"""

import base64
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pyharness as harness  # noqa: E402
from pyharness import ROOT, Answer, Sink, free_port, patient, wait_until  # noqa: E402,F401

os.environ.setdefault("SE_OFFLINE", "true")


def _find(env, *candidates):
    if os.environ.get(env):
        return os.environ[env]
    for candidate in candidates:
        found = shutil.which(candidate) or (candidate if os.path.exists(candidate) else None)
        if found:
            return found
    return None


CHROMIUM = _find("APPLE_ID_MOCK_CHROMIUM", "chromium", "/usr/bin/chromium", "chromium-browser")
CHROMEDRIVER = _find("APPLE_ID_MOCK_CHROMEDRIVER", "chromedriver", "/usr/bin/chromedriver")


def default_scenario():
    """scenarios/default.json as an upload takes it (without its `$schema` line)."""
    scenario = json.loads((ROOT / "scenarios/default.json").read_text())
    scenario.pop("$schema", None)
    return scenario


class MockServer(harness.MockServer):
    """One `apple-id-mock serve` process on a free port of 127.0.0.1 (the shared launcher), with the
    dashboard tests' helpers."""

    def client_secret(self, client_id):
        return subprocess.run(
            [self.binary, "client-secret", "--client-id", client_id], cwd=ROOT, check=True,
            capture_output=True, text=True).stdout.strip()

    def upload_scenario(self, name, edit):
        """Uploads scenarios/default.json as `name`, changed by `edit(scenario)`, and switches to it."""
        scenario = default_scenario()
        edit(scenario)
        return self.admin("POST", f"/__admin/scenarios?name={name}&activate=true", scenario)


class Receiver:
    """A notification receiver: records every POST and answers 200."""

    def __init__(self):
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                received.append({"path": self.path, "body": self.rfile.read(length).decode()})
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/apple/notifications"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def mock():
    server = MockServer()
    yield server
    server.stop()


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.stop()


def new_browser(width=1280, height=800, arguments=(), environment=None, block_popups=False):
    """Chromium; `arguments` are added to its command line, `environment` replaces chromedriver's
    (and so chromium's), `block_popups` keeps Chrome's popup blocker on (chromedriver turns it off)."""
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.fail("Debian's chromium and chromium-driver are needed: apt-get install chromium chromium-driver")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--force-device-scale-factor=1", "--lang=en-US",
                     "--disable-search-engine-choice-screen", "--no-first-run", *arguments]:
        options.add_argument(argument)
    if block_popups:
        options.add_experimental_option("excludeSwitches", ["disable-popup-blocking"])
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER, env=environment), options=options)
    driver.implicitly_wait(0)
    if width < 500:
        # Windows do not get narrower than 500 px; a phone's viewport is emulated instead.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    return driver


def section_screenshot(driver, element_id, path):
    """A PNG of one section as laid out, however tall, with the page scrolled to the top (so the
    sticky section links stay where they belong)."""
    driver.execute_script("window.scrollTo(0, 0)")
    rect = driver.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height};", element_id)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {**{k: round(v) for k, v in rect.items()}, "scale": 1}})
    Path(path).write_bytes(base64.b64decode(shot["data"]))


@pytest.fixture
def browser():
    """Chromium at 1280x800. Request it after `mock`, so that it closes before the server stops
    (the page polls the server until then)."""
    driver = new_browser()
    yield driver
    # The page must not have logged errors (CSP violations, exceptions) while the test ran.
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
              and "favicon" not in entry["message"] and "the server responded with a status of" not in entry["message"]]
    driver.quit()
    assert not errors, f"the browser logged errors: {errors}"


@pytest.fixture
def screenshots():
    """Where screenshots go: APPLE_ID_MOCK_SCREENSHOTS (docs/dashboard.md's are in Tests/browser/screenshots),
    else a temporary folder."""
    folder = os.environ.get("APPLE_ID_MOCK_SCREENSHOTS") or tempfile.mkdtemp(prefix="apple-id-mock-shots-")
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder)


def wait(browser, condition, what, seconds=5):
    """`condition(browser)` once it is truthy (an element not found yet, or replaced by a re-render,
    counts as not yet), polled every 50 ms until the deadline of `seconds` nominal seconds (the
    harness's); a TimeoutException naming `what` after that."""
    def attempt():
        try:
            return condition(browser)
        except (NoSuchElementException, StaleElementReferenceException):
            return None

    found = wait_until(attempt, seconds, interval=0.05)
    if not found:
        raise TimeoutException(f"timed out waiting until {what}")
    return found


# The dashboard at /__admin/.

def open_dashboard(browser, where):
    """Opens the dashboard of `where` (a MockServer: its default namespace's; or a URL) and waits
    until it is live."""
    browser.get(where if isinstance(where, str) else where.url + "/__admin/")
    wait(browser, lambda d: d.find_element(By.ID, "glance-live").text.startswith("live"), "the page went live")


def click(browser, by, selector):
    """Clicks as a user would: with the element scrolled clear of the sticky section links. The
    page re-renders what changed every second, so a control found just before may be replaced:
    it is found again."""
    for attempt in range(5):
        try:
            element = browser.find_element(by, selector)
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()
            return
        except StaleElementReferenceException:
            if attempt == 4:
                raise


def section_result(browser, section):
    """The result line of a dashboard section (`data-result`)."""
    return browser.find_element(By.CSS_SELECTOR, f'[data-result="{section}"]')


def wait_result(browser, section, text, seconds=5):
    wait(browser, lambda d: text in section_result(d, section).text, f'the {section} section says "{text}"', seconds)
    return section_result(browser, section)


def confirm_dialog(browser):
    """The confirmation the page asks for before a destructive action: its text, once open."""
    dialog = browser.find_element(By.ID, "confirm-dialog")
    wait(browser, lambda d: dialog.get_attribute("open") is not None, "the page asks to confirm")
    return dialog.text


def answer_dialog(browser, go_ahead=True):
    """Confirms (or cancels) the open confirmation, and waits until it is closed."""
    click(browser, By.ID, "confirm-yes" if go_ahead else "confirm-no")
    dialog = browser.find_element(By.ID, "confirm-dialog")
    wait(browser, lambda d: dialog.get_attribute("open") is None, "the confirmation closed")


def claims(jws):
    payload = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def curl_token(mock, client_id, path="/auth/token", **fields):
    """A token request made with curl to `path`, as a backend would make it: status and body."""
    form = {"client_id": client_id, "client_secret": mock.client_secret(client_id), **fields}
    command = ["curl", "-sS", "-o", "-", "-w", "\n%{http_code}", "-X", "POST", mock.url + path,
               "-H", "Content-Type: application/x-www-form-urlencoded"]
    for name, value in form.items():
        command += ["--data-urlencode", f"{name}={value}"]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    body, _, status = output.rpartition("\n")
    return int(status), body


# The web-popup example (examples/web-popup) and its page.

SCRIPT_PATH = "/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js"


def load_example():
    spec = importlib.util.spec_from_file_location("web_popup_example", ROOT / "examples/web-popup/app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ExampleApp:
    """examples/web-popup served on a free port of 127.0.0.1, reached as `host`."""

    def __init__(self, mock, host="localhost", script_url=None, mock_url=None, ca_bundle=None):
        from werkzeug.serving import make_server

        self.app = load_example().create_app()
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.port = self.server.server_port
        self.url = f"http://{host}:{self.port}"
        self.redirect_uri = f"{self.url}/auth/apple/callback"
        base = mock_url or mock.url
        self.app.config.update(MOCK_URL=base, APPLE_JS_URL=script_url or base + SCRIPT_PATH,
                               REDIRECT_URI=self.redirect_uri, CA_BUNDLE=ca_bundle)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        # The app's return URL, registered for the web client (its origin is where popups post).
        mock.upload_scenario("web-popup", lambda scenario: scenario["appGroups"][0]["servicesIds"][0]
                             ["redirectUris"].append(self.redirect_uri))

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def open_page(browser, app, mode="popup"):
    """Opens the app's page, waits for Sign in with Apple JS's button, and records the origin of
    every message the page receives."""
    browser.get(f"{app.url}/?mode={mode}")
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#appleid-signin [role=button]"), "the button is drawn")
    browser.execute_script("window.messageOrigins = [];"
                           "window.addEventListener('message', (e) => window.messageOrigins.push(e.origin));")
    return browser.current_window_handle


def switch_to_popup(browser, main):
    wait(browser, lambda d: len(d.window_handles) == 2, "the popup opened")
    browser.switch_to.window(next(handle for handle in browser.window_handles if handle != main))
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "button[value=continue]"), "the popup shows the consent page")


def app_status(browser, prefix):
    """The app page's status line, once it starts with `prefix`."""
    wait(browser, lambda d: d.find_element(By.ID, "status").text.startswith(prefix), f"the page says {prefix!r}")
    return browser.find_element(By.ID, "status").text


def app_result(browser):
    """What the app's backend made of the sign-in (its page's JSON)."""
    return json.loads(browser.find_element(By.ID, "result").text)
