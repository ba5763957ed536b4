"""Fixtures for the dashboard's browser tests.

A real `apple-id-mock serve` (the shared launcher of Tests/pyharness: APPLE_ID_MOCK_BINARY, else the
debug build; APPLE_ID_MOCK_* kept out of its environment), a notification receiver, and Debian's chromium driven by Debian's chromedriver through Selenium.
Nothing is downloaded: Selenium Manager is kept offline and pointed at the system driver.
"""

import base64
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
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pyharness as harness  # noqa: E402
from pyharness import ROOT, Answer, Sink, free_port  # noqa: E402,F401

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
