"""Apple's button image endpoints in a real browser (Debian's chromium): the PNGs the mock draws
load as images, at the size asked, on the mock's own address and, with --tls, at Apple's
https://appleid.cdn-apple.com URL that pages keep."""

import base64
import contextlib
import http.server
import os
import shutil
import subprocess
import tempfile
import threading

import pytest
from selenium.webdriver.common.by import By

from conftest import ROOT, MockServer, new_browser, wait

VARIANTS = [
    ("/appleid/button", "height=44&width=220&color=black&scale=2", 220, 44, "/appleid/button: black"),
    ("/appleid/button/left", "height=44&width=240&color=white&border=true&type=continue&scale=2&logo-size=medium",
     240, 44, "/appleid/button/left: white, border, continue"),
    ("/appleid/button/logo", "size=44&color=white&border=true&border_radius=50&scale=2", 44, 44,
     "/appleid/button/logo: radius 50"),
]


@contextlib.contextmanager
def page_at_localhost(html):
    """`html` served at http://localhost:P/ (a page on loopback, as a developer's app is: Chrome
    lets such a page load images from the mock on loopback, where a data: page is refused)."""
    body = html.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def loaded_images(driver):
    return driver.execute_script(
        "return Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])")


def test_three_variants_load_as_images_at_width_times_scale(mock, browser, screenshots):
    images = "".join(
        f'<figure style="margin:0"><img alt="{path}" src="{mock.url}{path}?{query}" width="{width}" height="{height}">'
        f"<figcaption>{caption}</figcaption></figure>"
        for path, query, width, height, caption in VARIANTS)
    page = ("<!doctype html><html><body id=page style='margin:0;padding:16px;background:#e8e8ed;"
            "font:13px system-ui;display:flex;gap:24px;align-items:end;width:fit-content'>" + images + "</body></html>")
    with page_at_localhost(page) as url:
        browser.get(url)
        wait(browser, lambda d: all(done and width for done, width, _ in loaded_images(d)), "every image loaded",
             seconds=10)
        assert [(width, height) for _, width, height in loaded_images(browser)] == [
            (width * 2, height * 2) for _, _, width, height, _ in VARIANTS]
        shot = browser.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "clip": {**browser.execute_script(
                "const r = document.body.getBoundingClientRect();"
                "return {x: 0, y: 0, width: r.width, height: r.height}"), "scale": 1}})
    (screenshots / "button-images.png").write_bytes(base64.b64decode(shot["data"]))


def test_a_bad_parameter_is_a_broken_image(mock):
    # Its own browser: the 404 is logged as an error, which the `browser` fixture refuses.
    driver = new_browser()
    try:
        page = f'<!doctype html><img src="{mock.url}/appleid/button?color=white-outline">'
        with page_at_localhost(page) as url:
            driver.get(url)
            wait(driver, lambda d: loaded_images(d)[0][0], "the image settled", seconds=10)
            assert loaded_images(driver) == [[True, 0, 0]]
        assert any("404" in entry["message"] for entry in driver.get_log("browser"))
    finally:
        driver.quit()


def test_apples_button_url_works_over_tls(monkeypatch):
    # The page: <img src="https://appleid.cdn-apple.com/appleid/button?height=44&width=200&color=white">,
    # with Apple's CDN name resolved to the mock (--tls, bundled certificate, the test CA trusted).
    certutil = shutil.which("certutil")
    if not certutil:
        if os.environ.get("APPLE_ID_MOCK_REQUIRE_BROWSER") == "1":
            pytest.fail("certutil is needed: apt-get install libnss3-tools")
        pytest.skip("certutil is missing: apt-get install libnss3-tools")
    ca = str(ROOT / "keys/tls/ca.pem")
    monkeypatch.setenv("SSL_CERT_FILE", ca)
    mock = MockServer("--tls")
    home = tempfile.mkdtemp(prefix="apple-id-mock-nss-")
    driver = None
    try:
        nssdb = f"sql:{home}/.pki/nssdb"
        os.makedirs(f"{home}/.pki/nssdb")
        subprocess.run([certutil, "-d", nssdb, "-N", "--empty-password"], check=True)
        subprocess.run([certutil, "-d", nssdb, "-A", "-t", "C,,", "-n", "apple-id-mock test CA", "-i", ca], check=True)
        rules = f"MAP appleid.cdn-apple.com 127.0.0.1:{mock.port}"
        driver = new_browser(arguments=[f"--host-resolver-rules={rules}"], environment={**os.environ, "HOME": home})
        page = '<!doctype html><img src="https://appleid.cdn-apple.com/appleid/button?height=44&width=200&color=white">'
        with page_at_localhost(page) as url:
            driver.get(url)
            wait(driver, lambda d: loaded_images(d)[0][0], "the image settled", seconds=10)
            assert loaded_images(driver) == [[True, 200, 44]]
    finally:
        if driver:
            driver.quit()
        mock.stop()
        shutil.rmtree(home, ignore_errors=True)
