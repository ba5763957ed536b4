"""Pitfall 1 (reference §12.1) in a real browser: Apple's `form_post` callback is a cross-site
POST, so a `SameSite=Lax` session cookie set by the app is not sent with it.

The app runs on http://localhost:P1 and the mock on http://127.0.0.1:P2: two sites, as the app and
appleid.apple.com are. The app sets its cookies and sends the browser to the mock's consent page;
Continue posts the `form_post` back to the app's callback, which records what arrived."""

import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.webdriver.common.by import By

from conftest import wait


class RelyingPartyApp:
    """A tiny web app on localhost: /login sets cookies and redirects to the mock; /callback
    receives the form_post; /whoami is a same-site request for comparison."""

    def __init__(self, mock_url):
        app = self
        self.callbacks = []
        self.finished = []
        self.whoami = []

        class Handler(BaseHTTPRequestHandler):
            def cookies(self):
                header = self.headers.get("Cookie") or ""
                return dict(part.strip().split("=", 1) for part in header.split(";") if "=" in part)

            def do_GET(self):
                if self.path.startswith("/login"):
                    redirect_uri = app.relay_uri if "relay" in self.path else app.redirect_uri
                    query = urllib.parse.urlencode({
                        "client_id": "com.example.web", "redirect_uri": redirect_uri,
                        "response_type": "code id_token", "response_mode": "form_post",
                        "scope": "name email", "state": "st-42", "nonce": "n-42"})
                    self.send_response(302)
                    # What most apps do: the session (holding state and nonce) in a Lax cookie.
                    self.send_header("Set-Cookie", "app_session=s1; Path=/; HttpOnly; SameSite=Lax")
                    # The fix for form_post: a cookie the browser sends with cross-site POSTs.
                    self.send_header("Set-Cookie", "app_oauth=s1; Path=/; HttpOnly; Secure; SameSite=None")
                    self.send_header("Location", f"{mock_url}/auth/authorize?{query}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif self.path.startswith("/finish"):
                    # The fix without new cookies: the same-site GET after the 303 carries the Lax cookie.
                    fields = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
                    app.finished.append({"cookies": self.cookies(), "fields": fields})
                    self.reply("signed in" if "app_session" in self.cookies() else "State cookie was missing")
                elif self.path.startswith("/whoami"):
                    app.whoami.append(self.cookies())
                    self.reply(f"cookies: {sorted(self.cookies())}")
                else:
                    self.send_error(404)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                fields = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                app.callbacks.append({"path": self.path, "cookies": self.cookies(), "fields": fields,
                                      "origin": self.headers.get("Origin")})
                if self.path == "/relay":
                    # Hand the fields on to a same-site GET (a real app would stash them server-side,
                    # keyed by state, rather than put the code in a URL).
                    self.send_response(303)
                    self.send_header("Location", "/finish?" + urllib.parse.urlencode({"state": fields.get("state", "")}))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                missing = "app_session" not in self.cookies()
                self.reply("State cookie was missing" if missing else "signed in")

            def reply(self, text):
                body = f"<!doctype html><title>app</title><p id=outcome>{text}</p>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://localhost:{self.port}"
        self.redirect_uri = f"{self.url}/callback"
        self.relay_uri = f"{self.url}/relay"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def sign_in_through_the_consent_page(browser, mock, app, login_path):
    """Registers the app's return URLs, opens its login page and presses Continue on the mock's."""
    def register_callbacks(scenario):
        scenario["appGroups"][0]["servicesIds"][0]["redirectUris"] += [app.redirect_uri, app.relay_uri]
    mock.upload_scenario("cross-site", register_callbacks)
    browser.get(f"{app.url}{login_path}")
    wait(browser, lambda d: d.current_url.startswith(mock.url + "/auth/authorize"), "the consent page opened")
    browser.find_element(By.CSS_SELECTOR, "button[value=continue]").click()


def test_form_post_from_another_site_arrives_without_the_lax_session_cookie(mock, browser):
    app = RelyingPartyApp(mock.url)
    try:
        sign_in_through_the_consent_page(browser, mock, app, "/login")
        wait(browser, lambda d: app.callbacks, "the form_post reached the app")
        wait(browser, lambda d: d.find_elements(By.ID, "outcome"), "the app shows the outcome")

        callback = app.callbacks[0]
        assert callback["path"] == "/callback"
        assert callback["origin"] == mock.url  # a cross-site POST, from the mock's origin
        assert callback["fields"]["state"] == "st-42" and callback["fields"]["code"] and callback["fields"]["id_token"]
        # As with Apple: the SameSite=Lax session cookie is not sent with the cross-site POST ...
        assert "app_session" not in callback["cookies"]
        assert browser.find_element(By.ID, "outcome").text == "State cookie was missing"
        # ... while a SameSite=None; Secure cookie is.
        assert callback["cookies"].get("app_oauth") == "s1"

        # The browser does hold the Lax cookie: a same-site request carries it.
        browser.get(f"{app.url}/whoami")
        assert app.whoami[-1].get("app_session") == "s1"
    finally:
        app.stop()


def test_the_fix_a_303_to_a_same_site_get_brings_the_lax_cookie_back(mock, browser):
    app = RelyingPartyApp(mock.url)
    try:
        sign_in_through_the_consent_page(browser, mock, app, "/login?relay")
        wait(browser, lambda d: app.finished, "the app's same-site GET ran")
        # The POST itself still came without the Lax cookie; the GET it redirected to has it.
        assert "app_session" not in app.callbacks[0]["cookies"]
        assert app.finished[0]["cookies"].get("app_session") == "s1"
        assert app.finished[0]["fields"]["state"] == "st-42"
        wait(browser, lambda d: d.find_elements(By.ID, "outcome"), "the app shows the outcome")
        assert browser.find_element(By.ID, "outcome").text == "signed in"
    finally:
        app.stop()
