"""A small web app that signs in with Apple through Sign in with Apple JS, against apple-id-mock.

The page loads `appleid.auth.js` (the mock's copy, or Apple's CDN URL when that name resolves to
the mock), renders the button and, in popup mode, sends the authorization it receives to
`POST /auth/apple/popup`. In redirect mode Apple's page posts it (`form_post`) to
`POST /auth/apple/callback`. Either way the backend exchanges the code at the token endpoint with
a `client_secret` it signs with its `.p8` key, and verifies the id_token: signature (by `kid`, from
the JWKS), `iss`, `aud`, `exp` and the nonce it issued.

Run it (the mock on its default port, with its bundled scenario):

    python3 examples/web-popup/app.py        # then open http://localhost:3000/

Settings come from environment variables (see README.md beside this file).
"""

import json
import os
import secrets
import ssl
import threading
import time
from pathlib import Path

import jwt
import requests
from flask import Flask, jsonify, render_template, request, session

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
# Apple's issuer, fixed: tokens are checked against it, not against whatever discovery says
# (Apple's discovery named https://account.apple.com for a day in June 2025).
APPLE_ISSUER = "https://appleid.apple.com"
SCRIPT_PATH = "/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js"


def settings_from_environment():
    mock = os.environ.get("APPLE_ID_MOCK_URL", "http://127.0.0.1:8080").rstrip("/")
    return {
        "MOCK_URL": mock,
        "APPLE_JS_URL": os.environ.get("APPLE_JS_URL", mock + SCRIPT_PATH),
        "CLIENT_ID": os.environ.get("APPLE_CLIENT_ID", "com.example.web"),
        "REDIRECT_URI": os.environ.get("APPLE_REDIRECT_URI", "http://localhost:3000/auth/apple/callback"),
        "TEAM_ID": os.environ.get("APPLE_TEAM_ID", "DEF123GHIJ"),
        "KEY_ID": os.environ.get("APPLE_KEY_ID", "ABC123DEFG"),
        "PRIVATE_KEY_PATH": os.environ.get(
            "APPLE_PRIVATE_KEY_PATH", str(ROOT / "keys/developer/AuthKey_ABC123DEFG.p8")),
        "SCOPE": os.environ.get("APPLE_SCOPE", "name email"),
        # A CA file to trust for the mock's HTTPS (its keys/tls/ca.pem), else the system's roots.
        "CA_BUNDLE": os.environ.get("APPLE_CA_BUNDLE"),
    }


class SignInError(Exception):
    """A sign-in the backend refuses, with the reason shown to the page."""


def create_app(overrides=None):
    app = Flask(__name__, template_folder=str(HERE / "templates"), static_folder=str(HERE / "static"))
    app.config.update(settings_from_environment())
    app.config.update(overrides or {})
    app.config.update(SECRET_KEY=secrets.token_hex(32), SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_HTTPONLY=True)
    # state -> nonce of sign-ins started here, for the form_post callback: that cross-site POST
    # arrives without the SameSite=Lax session cookie (reference pitfall 1), so it cannot use the session.
    pending = {}
    lock = threading.Lock()
    # sub -> the name and email Apple sent on the first authorization (it never sends them again).
    people = {}
    jwks = {}

    def jwk_client():
        url = app.config["MOCK_URL"] + "/auth/keys"
        if url not in jwks:
            bundle = app.config["CA_BUNDLE"]
            context = ssl.create_default_context(cafile=bundle) if bundle else None
            jwks[url] = jwt.PyJWKClient(url, cache_keys=True, ssl_context=context)
        return jwks[url]

    def client_secret():
        now = int(time.time())
        key = Path(app.config["PRIVATE_KEY_PATH"]).read_text()
        return jwt.encode(
            {"iss": app.config["TEAM_ID"], "iat": now, "exp": now + 600, "aud": APPLE_ISSUER,
             "sub": app.config["CLIENT_ID"]},
            key, algorithm="ES256", headers={"kid": app.config["KEY_ID"]})

    def verify_id_token(token, nonce):
        try:
            key = jwk_client().get_signing_key_from_jwt(token).key
            claims = jwt.decode(
                token, key, algorithms=["RS256"], audience=app.config["CLIENT_ID"], issuer=APPLE_ISSUER,
                options={"require": ["iss", "aud", "exp", "iat", "sub"]})
        except jwt.PyJWTError as error:
            raise SignInError(f"id_token refused: {error}") from error
        if claims.get("nonce") != nonce:
            raise SignInError("id_token refused: nonce mismatch")
        return claims

    def exchange(code):
        answer = requests.post(app.config["MOCK_URL"] + "/auth/token", data={
            "grant_type": "authorization_code", "code": code, "client_id": app.config["CLIENT_ID"],
            "client_secret": client_secret(), "redirect_uri": app.config["REDIRECT_URI"]},
            timeout=10, verify=app.config["CA_BUNDLE"] or True)
        if answer.status_code != 200:
            raise SignInError(f"token endpoint answered {answer.status_code}: {answer.text}")
        return answer.json()

    def complete(authorization, user, nonce, mode, session_cookie):
        """Checks the front-channel id_token, exchanges the code, checks the new id_token."""
        if not authorization.get("code") or not authorization.get("id_token"):
            raise SignInError("the authorization lacks code or id_token")
        front = verify_id_token(authorization["id_token"], nonce)
        tokens = exchange(authorization["code"])
        claims = verify_id_token(tokens["id_token"], nonce)
        if claims["sub"] != front["sub"]:
            raise SignInError("the two id_tokens name different users")
        with lock:
            if user:
                people[claims["sub"]] = {"name": user.get("name"), "email": user.get("email")}
            known = people.get(claims["sub"], {})
        return {
            "mode": mode, "sub": claims["sub"], "email": claims.get("email") or known.get("email"),
            "name": known.get("name"), "first_authorization": bool(user), "nonce_checked": True,
            "session_cookie": session_cookie, "refresh_token": bool(tokens.get("refresh_token")),
        }

    @app.get("/")
    def index():
        use_popup = request.args.get("mode", "popup") != "redirect"
        state, nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        session["apple_state"], session["apple_nonce"] = state, nonce
        with lock:
            pending[state] = (nonce, time.time())
            for old in [key for key, (_, at) in pending.items() if time.time() - at > 600]:
                del pending[old]
        sign_in = {"clientId": app.config["CLIENT_ID"], "scope": app.config["SCOPE"],
                   "redirectURI": app.config["REDIRECT_URI"], "state": state, "nonce": nonce, "usePopup": use_popup}
        return render_template("index.html", sign_in=sign_in, apple_js_url=app.config["APPLE_JS_URL"],
                               mode="popup" if use_popup else "redirect")

    @app.post("/auth/apple/popup")
    def popup():
        """What the page posts after AppleIDSignInOnSuccess: a same-origin fetch, so the
        SameSite=Lax session cookie comes with it."""
        body = request.get_json(silent=True) or {}
        authorization = body.get("authorization") or {}
        if not session.get("apple_state") or authorization.get("state") != session.get("apple_state"):
            return jsonify(error="state mismatch"), 400
        nonce = session.pop("apple_nonce")
        session.pop("apple_state")
        with lock:
            pending.pop(authorization["state"], None)
        try:
            return jsonify(complete(authorization, body.get("user"), nonce, "popup", True))
        except SignInError as error:
            return jsonify(error=str(error)), 400

    @app.post("/auth/apple/callback")
    def callback():
        """Apple's form_post (redirect mode): a cross-site POST, so found by state, not by cookie."""
        form = request.form
        with lock:
            found = pending.pop(form.get("state", ""), None)
        if form.get("error"):
            return render_template("result.html", result={"error": form["error"]}), 400
        if found is None:
            return render_template("result.html", result={"error": "unknown state"}), 400
        user = json.loads(form["user"]) if form.get("user") else None
        try:
            result = complete({"code": form.get("code"), "id_token": form.get("id_token")}, user, found[0],
                              "redirect", "session" in request.cookies)
        except SignInError as error:
            return render_template("result.html", result={"error": str(error)}), 400
        return render_template("result.html", result=result)

    @app.after_request
    def headers(response):
        # The page opens Apple's popup and must keep its window.opener link: never COOP same-origin.
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin-allow-popups")
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    return app


if __name__ == "__main__":
    create_app().run(host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "3000")))
