"""A small Sign in with Apple backend that verifies identity tokens the way a backend must, with
one verification bug planted on demand: the subject of a backend conformance run (issue 46).

Endpoints (see README.md beside this file):

- `POST /api/auth/apple/native`: what an iOS app posts (`identityToken`, `rawNonce`,
  `userIdentifier`, ...); the token is verified and a `session` cookie set.
- `POST /api/auth/apple/code`: an `authorizationCode` exchanged at the token endpoint (client id:
  the bundle ID), then the answer's id_token verified.
- `GET /login/apple/start`, `POST /auth/apple/callback`, `GET /welcome`: the web flow
  (`form_post`, Services ID), with `state` bound to the browser's `sid` cookie and the nonce
  compared exactly.
- `POST /api/apple/notifications`: Apple's server-to-server notifications (`{"payload": jws}`),
  verified as identity tokens are (aud: the bundle ID), `events` a string holding JSON; a
  `consent-revoked` or `account-delete` ends the user's sessions.
- `GET /health`.

Verification (reference §6, §19): RS256 only, the key by `kid` from the JWKS (an unknown kid
refetches it, at most once per JWKS_MIN_INTERVAL seconds), never a key named by the token's header;
`iss` exactly Apple's; `aud` one of CLIENT_IDS; `exp`, `iat` with 60 s of leeway and `iat` at most
a day old; `sub` present and equal to the app's `userIdentifier`; the nonce; `email_verified` as a
boolean or a "true"/"false" string. `BUG=<name>` plants exactly one mistake (README.md lists them).

Run: `python3 examples/backend-conformance/backend.py` with the mock on http://127.0.0.1:8080.
"""

import base64
import hashlib
import hmac
import html
import json
import math
import os
import secrets
import sys
import threading
import time
import traceback
import urllib.parse
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jwt
import requests
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from jwt.algorithms import RSAAlgorithm, get_default_algorithms

HERE = Path(__file__).resolve().parent
APPLE_ISSUER = "https://appleid.apple.com"  # Apple's literal, never discovery's (§17, §19)
LEEWAY = 60  # seconds of clock skew allowed on exp, iat and nbf
MAX_IAT_AGE = 86400  # an iat older than a day is refused, whatever exp says
JWKS_TTL = 3600  # the JWKS is fetched again after an hour
MAX_BODY = 64 * 1024
BUGS = {"", "no-aud", "alg-from-header", "no-verify", "keys-first", "no-nonce", "no-state", "strict-bools",
        "keys-cached-forever", "trust-header-keys", "errors-as-200", "user-id-ignored", "truthy-strings"}

MOCK_URL = os.environ.get("MOCK_URL", "http://127.0.0.1:8080").rstrip("/")
CLIENT_IDS = [c.strip() for c in os.environ.get("CLIENT_IDS", "com.example.app,com.example.web").split(",")
              if c.strip()]
BUNDLE_ID, SERVICES_ID = CLIENT_IDS[0], CLIENT_IDS[-1]
TEAM_ID = os.environ.get("TEAM_ID", "DEF123GHIJ")
KEY_ID = os.environ.get("KEY_ID", "ABC123DEFG")
KEY_FILE = Path(os.environ.get("KEY_FILE") or HERE / "../../keys/developer/AuthKey_ABC123DEFG.p8")
REDIRECT_URI = os.environ.get("REDIRECT_URI", "http://127.0.0.1:3000/auth/apple/callback")
NONCE_SCHEME = os.environ.get("NONCE_SCHEME", "sha256-hex")
JWKS_MIN_INTERVAL = float(os.environ.get("JWKS_MIN_INTERVAL", "5"))
BUG = os.environ.get("BUG", "")
if BUG not in BUGS or NONCE_SCHEME not in ("sha256-hex", "raw"):
    sys.exit(f"unknown BUG {BUG!r} or NONCE_SCHEME {NONCE_SCHEME!r}")


class Refused(Exception):
    """A sign-in refused: `reason` goes back to the client with `status`."""

    def __init__(self, reason, status=401):
        super().__init__(reason)
        self.reason, self.status = reason, status


def b64url_encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class AppleKeys:
    """Apple's JWKS, cached: fetched at first use and after JWKS_TTL; an unknown kid refetches it,
    at most once per JWKS_MIN_INTERVAL (a request waits for that rather than refusing a key
    rotated in a moment ago)."""

    def __init__(self):
        self.keys, self.fetched_at, self.lock = None, -math.inf, threading.Lock()

    def _fetch(self):
        try:
            answer = requests.get(f"{MOCK_URL}/auth/keys", timeout=10)
            answer.raise_for_status()
            keys = [k for k in answer.json()["keys"] if isinstance(k, dict) and k.get("kty") == "RSA"]
        except (requests.RequestException, ValueError, KeyError, TypeError) as error:
            raise Refused(f"Apple's keys are unavailable: {error}", 503)
        self.keys, self.fetched_at = keys, time.monotonic()

    def stale(self):
        return self.keys is None or (BUG != "keys-cached-forever" and time.monotonic() - self.fetched_at > JWKS_TTL)

    def find(self, kid):
        """The JWK to verify a token whose header names `kid` (None: no such key)."""
        asked = time.monotonic()
        if self.stale():
            with self.lock:
                if self.stale():
                    self._fetch()
        if BUG == "keys-first":
            return self.keys[0] if self.keys else None  # the bug: keys[0], whatever the kid
        if kid is None:
            if len(self.keys) == 1:
                return self.keys[0]
            raise Refused("the token names no kid and Apple publishes several keys")
        found = next((k for k in self.keys if k.get("kid") == kid), None)
        if found or BUG == "keys-cached-forever":  # the bug: never a fetch after the first
            return found
        with self.lock:
            if self.fetched_at < asked:  # nobody refetched since this request came: refetch
                time.sleep(max(0.0, self.fetched_at + JWKS_MIN_INTERVAL - time.monotonic()))
                self._fetch()
        return next((k for k in self.keys if k.get("kid") == kid), None)


KEYS = AppleKeys()


def public_key(jwk):
    return RSAAlgorithm.from_jwk(json.dumps(jwk))


def header_key(header):
    """BUG=trust-header-keys: the key the token's own header names (an embedded `jwk`, a JWKS at
    `jku`, a PEM certificate at `x5u`, a DER certificate in `x5c`), or None when it names none."""
    try:
        if isinstance(header.get("jwk"), dict):
            return public_key(header["jwk"])
        if isinstance(header.get("jku"), str):
            answer = requests.get(header["jku"], timeout=10)
            answer.raise_for_status()
            keys = answer.json()["keys"]
            return public_key(next((k for k in keys if k.get("kid") == header.get("kid")), keys[0]))
        if isinstance(header.get("x5u"), str):
            answer = requests.get(header["x5u"], timeout=10)
            answer.raise_for_status()
            return x509.load_pem_x509_certificate(answer.content).public_key()
        if isinstance(header.get("x5c"), list) and header["x5c"]:
            return x509.load_der_x509_certificate(base64.b64decode(header["x5c"][0])).public_key()
    except (requests.RequestException, ValueError, KeyError, TypeError, IndexError) as error:
        raise Refused(f"the header's key is unavailable: {error}")
    return None


def check_signature(header, signing_input, signature):
    alg, kid = header.get("alg"), header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise Refused("kid is not a string")
    # jwk, jku, x5u and x5c in the header are never read: keys come from Apple's JWKS only (but
    # with BUG=trust-header-keys).
    if BUG == "alg-from-header":
        # The bug: whatever algorithm the token names, with Apple's key (omnivore #4651).
        jwk = KEYS.find(kid)
        if jwk is None:
            raise Refused("no Apple key for this kid")
        if isinstance(alg, str) and alg.startswith("HS") and alg[2:] in ("256", "384", "512"):
            pem = public_key(jwk).public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
            expected = hmac.new(pem, signing_input, getattr(hashlib, f"sha{alg[2:]}")).digest()
            valid = hmac.compare_digest(expected, signature)
        elif alg in ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"):
            valid = get_default_algorithms()[alg].verify(signing_input, public_key(jwk), signature)
        else:
            raise Refused(f"unsupported alg {alg!r}")
    else:
        if alg != "RS256":
            raise Refused(f"alg must be RS256, not {alg!r}")
        key = header_key(header) if BUG == "trust-header-keys" else None  # the bug: the token names its key
        if key is None:
            jwk = KEYS.find(kid)
            if jwk is None:
                raise Refused("no Apple key for this kid")
            key = public_key(jwk)
        valid = RSAAlgorithm(RSAAlgorithm.SHA256).verify(signing_input, key, signature)
    if not valid:
        raise Refused("bad signature")


def number(claims, name):
    value = claims.get(name)
    if isinstance(value, bool) or not (isinstance(value, int) or isinstance(value, float) and math.isfinite(value)):
        raise Refused(f"{name} missing or not a number")
    return value


def same(got, expected):
    """`got` is the string `expected` (compared in constant time)."""
    encode = lambda text: text.encode("utf-8", "surrogatepass")  # noqa: E731
    return isinstance(got, str) and hmac.compare_digest(encode(got), encode(expected))


def apple_bool(claims, name):
    """`email_verified` / `is_private_email`: a JSON boolean or the string "true"/"false"."""
    value = claims.get(name)
    if BUG == "strict-bools" and isinstance(value, str):
        raise Refused(f"{name} is not a boolean")  # the bug: real Apple tokens carry strings
    if BUG == "truthy-strings" and isinstance(value, str):
        return bool(value)  # the bug: "false" is a non-empty string, so true
    return value is True or (isinstance(value, str) and value.lower() == "true")


def signed_by_apple(token, audiences):
    """The claims of a compact JWS signed by one of Apple's keys, issued by Apple for one of
    `audiences` and not expired: what identity tokens and notifications share."""
    if not isinstance(token, str) or token.count(".") != 2:
        raise Refused("not a compact JWS")
    head, body, sig = token.split(".")
    try:
        header, claims, signature = json.loads(b64url(head)), json.loads(b64url(body)), b64url(sig)
    except ValueError:
        raise Refused("not a compact JWS")
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise Refused("not a compact JWS")
    if BUG != "no-verify":  # the bug: the payload is read, the signature never checked
        check_signature(header, f"{head}.{body}".encode(), signature)
    if claims.get("iss") != APPLE_ISSUER:
        raise Refused("wrong iss")
    aud = claims.get("aud")
    # aud: a string, or an array of exactly one member (JWT allows it; Apple sends a string).
    if isinstance(aud, list) and len(aud) == 1:
        aud = aud[0]
    if BUG != "no-aud" and (not isinstance(aud, str) or aud not in audiences):
        raise Refused("wrong aud")
    if number(claims, "exp") <= time.time() - LEEWAY:
        raise Refused("expired")
    return claims


def verify(token, audiences, nonce=None, user_id=None):
    """The claims of `token` once it passed every check; `nonce` is the value the token's `nonce`
    must equal (None: no nonce expected), `user_id` the `sub` the client claims."""
    claims = signed_by_apple(token, audiences)
    now = time.time()
    iat = number(claims, "iat")
    if iat > now + LEEWAY:
        raise Refused("iat in the future")
    if iat < now - MAX_IAT_AGE:
        raise Refused("iat too old")
    if "nbf" in claims and number(claims, "nbf") > now + LEEWAY:
        raise Refused("not yet valid")
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise Refused("sub missing")
    # With BUG=user-id-ignored (not a mistake) the app's userIdentifier is ignored: the token's
    # sub is signed in whatever it says, which is as safe.
    if user_id is not None and user_id != sub and BUG != "user-id-ignored":
        raise Refused("userIdentifier is not the token's sub")
    if nonce is not None and BUG != "no-nonce":
        if not same(claims.get("nonce"), nonce):
            raise Refused("wrong or missing nonce")
    claims["email_verified"] = apple_bool(claims, "email_verified")
    claims["is_private_email"] = apple_bool(claims, "is_private_email")
    return claims


def notification_event(payload):
    """The decoded `events` of a server-to-server notification's JWS (reference §9): signed by
    Apple for the app (aud: its bundle ID), `events` a string holding JSON with `type` and `sub`."""
    claims = signed_by_apple(payload, [BUNDLE_ID])
    if number(claims, "iat") > time.time() + LEEWAY:
        raise Refused("iat in the future")
    events = claims.get("events")
    if not isinstance(events, str):  # Apple posts a string holding JSON, never an object
        raise Refused("events is not a string", 400)
    try:
        event = json.loads(events)
    except ValueError:
        raise Refused("events is not JSON", 400)
    if not isinstance(event, dict) or not isinstance(event.get("type"), str) or not isinstance(event.get("sub"), str):
        raise Refused("events names no type and sub", 400)
    return event


def client_secret(client_id):
    """The ES256 client_secret JWT Apple's token endpoint asks for (5 minutes)."""
    now = int(time.time())
    return jwt.encode({"iss": TEAM_ID, "sub": client_id, "aud": APPLE_ISSUER, "iat": now, "exp": now + 300},
                      KEY_FILE.read_text(), algorithm="ES256", headers={"kid": KEY_ID})


def exchange(code, client_id, redirect_uri=None):
    """Exchanges `code` at the token endpoint; its JSON answer."""
    if not isinstance(code, str) or not code:
        raise Refused("authorizationCode missing", 400)
    form = {"grant_type": "authorization_code", "code": code, "client_id": client_id,
            "client_secret": client_secret(client_id)}
    if redirect_uri:
        form["redirect_uri"] = redirect_uri
    try:
        answer = requests.post(f"{MOCK_URL}/auth/token", data=form, timeout=15)
        body = answer.json()
    except (requests.RequestException, ValueError) as error:
        raise Refused(f"token endpoint unavailable: {error}", 502)
    if answer.status_code != 200 or not isinstance(body, dict):
        error = body.get("error") if isinstance(body, dict) else None
        raise Refused(f"token endpoint: {error or answer.status_code}")
    return body


LOCK = threading.Lock()
SESSIONS = {}  # session cookie -> the signed-in user
PENDING = {}  # sid cookie -> {"state", "nonce"} of a web sign-in under way
USED_TOKENS = {}  # sha256 of a native identity token -> its exp: each is accepted once


def sign_in(claims, name=None):
    session = secrets.token_urlsafe(32)
    with LOCK:
        SESSIONS[session] = {"sub": claims["sub"], "email": claims.get("email"),
                             "emailVerified": claims["email_verified"], "name": name}
    return session


class Handler(BaseHTTPRequestHandler):
    server_version = "backend-conformance"

    def log_message(self, format, *args):
        sys.stderr.write(f"{self.command} {self.path} -> {args[1] if len(args) > 1 else ''}\n")

    def answer(self, status, body, content_type="application/json", headers=()):
        data = (json.dumps(body) if content_type == "application/json" else body).encode()
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def cookie(self, name):
        jar = SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie", ""))
        except Exception:
            return None
        return jar[name].value if name in jar else None

    def form(self):
        """The body as a dict of strings (JSON object or urlencoded form)."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise Refused("bad Content-Length", 400)
        if length > MAX_BODY:
            raise Refused("body too large", 413)
        data = self.rfile.read(length) if length > 0 else b""
        if "json" in self.headers.get("Content-Type", ""):
            try:
                body = json.loads(data or b"null")
            except ValueError:
                raise Refused("malformed JSON", 400)
            if not isinstance(body, dict):
                raise Refused("the body is not a JSON object", 400)
            return body
        return dict(urllib.parse.parse_qsl(data.decode("utf-8", "replace")))

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/health":
            self.answer(200, {"status": "ok", "bug": BUG or None})
        elif url.path == "/login/apple/start":
            self.start(urllib.parse.parse_qs(url.query))
        elif url.path == "/welcome":
            with LOCK:
                user = SESSIONS.get(self.cookie("session"))
            if user:
                self.answer(200, f"<p>signed in as {html.escape(user['sub'])}</p>", "text/html")
            else:
                self.answer(401, "<p>not signed in</p>", "text/html")
        else:
            self.answer(404, {"error": "not found"})

    def do_POST(self):
        path = urllib.parse.urlsplit(self.path).path
        try:
            if path == "/api/auth/apple/native":
                self.native(self.form())
            elif path == "/api/auth/apple/code":
                self.code(self.form())
            elif path == "/auth/apple/callback":
                self.callback(self.form())
            elif path == "/api/apple/notifications":
                self.notification(self.form())
            else:
                self.answer(404, {"error": "not found"})
        except Exception as error:  # a Refused, or a bug of ours: answered, never a dropped connection
            refusal = error if isinstance(error, Refused) else Refused("internal error", 500)
            if refusal.status == 500:
                traceback.print_exc()
            # BUG=errors-as-200: every refusal answered 200 with the error in the body.
            status = 200 if BUG == "errors-as-200" else refusal.status
            if path == "/auth/apple/callback":
                page = f"<h1>Sign in with Apple failed</h1><p>{html.escape(refusal.reason)}</p>"
                self.answer(status, page, "text/html")
            else:
                self.answer(status, {"error": refusal.reason})

    def signed_in(self, claims, name=None):
        session = sign_in(claims, name)
        body = {"sub": claims["sub"], "email": claims.get("email"), "emailVerified": claims["email_verified"]}
        self.answer(200, body, headers=[("Set-Cookie", f"session={session}; HttpOnly; Path=/; SameSite=Lax")])

    def native(self, body):
        token, raw_nonce, user_id = body.get("identityToken"), body.get("rawNonce"), body.get("userIdentifier")
        if not isinstance(token, str) or not token:
            raise Refused("identityToken missing", 400)
        if not all(v is None or isinstance(v, str) for v in (raw_nonce, user_id)):
            raise Refused("rawNonce and userIdentifier must be strings", 400)
        nonce = None
        if raw_nonce:
            nonce = hashlib.sha256(raw_nonce.encode()).hexdigest() if NONCE_SCHEME == "sha256-hex" else raw_nonce
        claims = verify(token, CLIENT_IDS, nonce=nonce, user_id=user_id or None)
        digest, now = hashlib.sha256(token.encode()).hexdigest(), time.time()
        with LOCK:  # a token is good for one sign-in, not a replay within its exp
            for old in [d for d, exp in USED_TOKENS.items() if exp < now - LEEWAY]:
                del USED_TOKENS[old]
            if digest in USED_TOKENS:
                raise Refused("identity token already used")
            USED_TOKENS[digest] = claims["exp"]
        self.signed_in(claims, first_name(body.get("user")))

    def notification(self, body):
        event = notification_event(body.get("payload"))
        if event["type"] in ("consent-revoked", "account-delete", "account-deleted"):
            with LOCK:  # the user's sessions end
                for session in [k for k, user in SESSIONS.items() if user["sub"] == event["sub"]]:
                    del SESSIONS[session]
        self.answer(200, {"received": event["type"]})

    def code(self, body):
        tokens = exchange(body.get("authorizationCode"), BUNDLE_ID)
        self.signed_in(verify(tokens.get("id_token"), [BUNDLE_ID]))

    def start(self, query):
        sid, state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        with LOCK:
            PENDING[sid] = {"state": state, "nonce": nonce}
        params = {"response_type": "code id_token", "response_mode": "form_post", "client_id": SERVICES_ID,
                  "redirect_uri": REDIRECT_URI, "scope": "name email", "state": state, "nonce": nonce}
        if query.get("login_hint"):
            params["login_hint"] = query["login_hint"][0]
        location = f"{MOCK_URL}/auth/authorize?" + urllib.parse.urlencode(params, quote_via=urllib.parse.quote)
        # Apple's form_post is a cross-site POST: over https the cookie must be SameSite=None to
        # come back with it; over http (a local mock) Lax does, as the sites are the same.
        same_site = "None; Secure" if REDIRECT_URI.startswith("https:") else "Lax"
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Set-Cookie", f"sid={sid}; HttpOnly; Path=/; SameSite={same_site}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def callback(self, form):
        if form.get("error"):
            raise Refused(f"Apple answered {form['error']}")
        state = form.get("state")
        with LOCK:
            if BUG == "no-state":
                # The bug: the sign-in is found by the posted state, not by this browser's cookie
                # (SocialiteProviders #1485): an attacker's code and state sign the victim in.
                sid = next((s for s, p in PENDING.items() if p["state"] == state), None)
            else:
                sid = self.cookie("sid")
            pending = PENDING.pop(sid, None) if sid else None
        if pending is None:
            raise Refused("no sign-in under way in this browser")
        if BUG != "no-state" and not same(state, pending["state"]):
            raise Refused("state does not match this browser's sign-in")
        code = form.get("code") or ""
        if form.get("id_token"):
            # The callback's own id_token is verified too, and must be bound to its code (c_hash:
            # the left half of SHA-256 of the code, base64url), so a swapped code is refused.
            front = verify(form["id_token"], [SERVICES_ID], nonce=pending["nonce"])
            digest = hashlib.sha256(code.encode()).digest()[:16]
            if not same(front.get("c_hash"), b64url_encode(digest)):
                raise Refused("the callback's id_token c_hash does not match its code")
        tokens = exchange(code, SERVICES_ID, REDIRECT_URI)
        claims = verify(tokens.get("id_token"), [SERVICES_ID], nonce=pending["nonce"])
        session = sign_in(claims, first_name(form.get("user")))
        self.send_response(302)
        self.send_header("Location", "/welcome")
        self.send_header("Set-Cookie", f"session={session}; HttpOnly; Path=/; SameSite=Lax")
        self.send_header("Set-Cookie", "sid=; Max-Age=0; Path=/")
        self.send_header("Content-Length", "0")
        self.end_headers()


def first_name(user):
    """The name of a first authorization's `user` JSON (sent once, never in the token), if any."""
    try:
        user = json.loads(user) if isinstance(user, str) else user
        return user["name"]["firstName"]
    except (ValueError, TypeError, KeyError):
        return None


def main():
    server = ThreadingHTTPServer((os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "0"))), Handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    print(f"backend listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
