"""The example backend against a real apple-id-mock (the debug build): the correct backend accepts
what Apple sends and refuses every defect, and each BUG accepts exactly what its bug lets through.

Every test works in a namespace of its own (`/ns/<uuid>/` on one mock), so rotating keys or
changing settings in one never reaches another. Run: `python3 -m pytest examples/backend-conformance -q`.
"""

import hashlib
import json
import sys
import threading
import time
import uuid
from html.parser import HTMLParser
from pathlib import Path

import pytest
import requests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "Tests"))
from pyharness import MockServer, patient, wait_until  # noqa: E402
from backend_process import ConformanceBackend  # noqa: E402

BUNDLE_ID, SERVICES_ID = "com.example.app", "com.example.web"
RAW_NONCE = "raw-nonce-0S6_WzA2Mj"
HASHED_NONCE = hashlib.sha256(RAW_NONCE.encode()).hexdigest()
DEFECTS = ["expired", "not-yet-valid", "wrong-iss", "wrong-aud", "bad-signature", "alg-none", "hs256-public-key",
           "unknown-kid", "missing-kid", "wrong-nonce"]
# What each backend wrongly accepts among DEFECTS (JWKS in stable order: the signing key first).
ACCEPTS = {
    "": set(),
    "no-aud": {"wrong-aud"},
    "alg-from-header": {"hs256-public-key"},
    "no-verify": {"bad-signature", "alg-none", "hs256-public-key", "unknown-kid", "missing-kid"},
    "keys-first": {"missing-kid"},  # keys[0] happens to be the signing key here
    "no-nonce": {"wrong-nonce"},
    "no-state": set(),
    "strict-bools": set(),
    "keys-cached-forever": set(),
}


@pytest.fixture(scope="module")
def mock():
    server = MockServer("--scenarios-dir", "scenarios", "--keys-dir", "keys")
    yield server
    server.stop()


class World:
    """One namespace of the mock: its Apple URL and its control plane."""

    def __init__(self, mock):
        self.mock, self.name = mock, uuid.uuid4().hex
        self.url = f"{mock.url}/ns/{self.name}"
        self.admin("PATCH", "/settings", {"jwksOrder": "stable"})

    def admin(self, method, path, body=None):
        return self.mock.admin(method, f"/ns/{self.name}/__admin{path}", body)

    def mint(self, client_id=BUNDLE_ID, flow="native", nonce=HASHED_NONCE, **order):
        body = {"user": "sam", "clientId": client_id, "flow": flow, **order}
        if nonce is not None:
            body["nonce"] = nonce
        return self.admin("POST", "/mint/id-token", body)["token"]

    def mint_defect(self, defect):
        if defect == "wrong-aud":
            # The mock's wrong-aud picks the team's other client (com.example.web), which this
            # backend accepts on purpose: another team's app is what must be refused.
            return self.mint(set={"aud": "com.otherstudio.app"})
        return self.mint(defect=defect)

    def register_redirect(self, redirect_uri):
        """Activates the default scenario with `redirect_uri` registered for the Services ID."""
        scenario = json.loads((ROOT / "scenarios/default.json").read_text())
        scenario.pop("$schema", None)
        scenario["appGroups"][0]["servicesIds"][0]["redirectUris"].append(redirect_uri)
        self.admin("POST", "/scenarios?name=backend-conformance&activate=true", scenario)
        self.admin("PATCH", "/settings", {"jwksOrder": "stable"})


@pytest.fixture
def world(mock):
    world = World(mock)
    yield world
    mock.call("DELETE", f"/__admin/namespaces/{world.name}")


class Backend(ConformanceBackend):
    """backend.py as a subprocess on a port of its own, talking to `world`'s URLs."""

    def __init__(self, world, bug="", **env):
        super().__init__(world.url, bug, **env)
        self.redirect_uri = f"{self.url}/auth/apple/callback"

    def native(self, token, raw_nonce=RAW_NONCE, **fields):
        body = {"identityToken": token, **fields}
        if raw_nonce is not None:
            body["rawNonce"] = raw_nonce
        return requests.post(f"{self.url}/api/auth/apple/native", json=body, timeout=patient(15))


@pytest.fixture
def backends():
    started = []

    def start(world, bug="", **env):
        started.append(Backend(world, bug, **env))
        return started[-1]

    yield start
    for backend in started:
        backend.stop()


class FormPost(HTMLParser):
    """The action and hidden inputs of Apple's form_post page."""

    def __init__(self, text):
        super().__init__()
        self.action, self.fields = None, {}
        self.feed(text)

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "form":
            self.action = attributes.get("action")
        elif tag == "input" and attributes.get("name"):
            self.fields[attributes["name"]] = attributes.get("value") or ""


def authorize_page(backend, browser, login_hint="sam"):
    """Starts a web sign-in in `browser` and follows it to Apple's form_post page."""
    page = browser.get(f"{backend.url}/login/apple/start", params={"login_hint": login_hint}, timeout=patient(15))
    assert page.status_code == 200, page.text
    form = FormPost(page.text)
    assert form.action == backend.redirect_uri and "code" in form.fields, page.text
    return form


# -- the correct backend ---------------------------------------------------------------------------


def test_health(world, backends):
    assert requests.get(f"{backends(world).url}/health", timeout=patient(5)).status_code == 200


@pytest.mark.parametrize("bug", sorted(ACCEPTS))
def test_each_backend_accepts_exactly_what_its_bug_lets_through(world, backends, bug):
    backend = backends(world, bug)
    valid = backend.native(world.mint())
    assert valid.status_code == 200, valid.text
    assert valid.json()["emailVerified"] is True and "session=" in valid.headers["Set-Cookie"]
    answers = {defect: backend.native(world.mint_defect(defect)) for defect in DEFECTS}
    for answer in answers.values():
        assert answer.status_code in (200, 401), answer.text
    accepted = {defect for defect, answer in answers.items() if answer.status_code == 200}
    assert accepted == ACCEPTS[bug], {d: a.json() for d, a in answers.items()}


def test_claims_apple_really_sends_are_accepted(world, backends):
    backend = backends(world)
    for client_id, flow in ((BUNDLE_ID, "native"), (SERVICES_ID, "web")):
        assert backend.native(world.mint(client_id, flow)).status_code == 200, client_id
    strings = backend.native(world.mint(set={"email_verified": "true", "is_private_email": "true"}))
    assert strings.status_code == 200 and strings.json()["emailVerified"] is True
    unverified = backend.native(world.mint(set={"email_verified": "false"}))
    assert unverified.status_code == 200 and unverified.json()["emailVerified"] is False
    assert backend.native(world.mint(set={"aud": [BUNDLE_ID]})).status_code == 200
    iat = world.admin("POST", "/mint/id-token", {"user": "sam", "clientId": BUNDLE_ID})["claims"]["iat"]
    assert backend.native(world.mint(set={"iat": iat + 30})).status_code == 200  # small clock skew
    assert backend.native(world.mint(nonce=None), raw_nonce=None).status_code == 200
    form = requests.post(f"{backend.url}/api/auth/apple/native", timeout=patient(15),
                         data={"identityToken": world.mint(), "rawNonce": RAW_NONCE, "user": '{"name": {}}'})
    assert form.status_code == 200, form.text


def test_hardening_refusals(world, backends):
    backend = backends(world)
    iat = world.admin("POST", "/mint/id-token", {"user": "sam", "clientId": BUNDLE_ID})["claims"]["iat"]
    refused = {
        "aud-extra-member": world.mint(set={"aud": [BUNDLE_ID, SERVICES_ID]}),
        "iat-stale": world.mint(set={"iat": iat - 7 * 86400, "exp": iat + 3600}),
        "iat-future": world.mint(set={"iat": iat + 3600}),
        "no-nonce-in-token": world.mint(nonce=None),
        "raw-nonce-in-token": world.mint(nonce=RAW_NONCE),  # scheme confusion: sha256-hex expected
        **{f"no-{claim}": world.mint(remove=[claim]) for claim in ("iss", "aud", "exp", "iat", "sub")},
    }
    for case, token in refused.items():
        answer = backend.native(token)
        assert answer.status_code == 401, (case, answer.text)
    token = world.mint()
    assert backend.native(token, userIdentifier="000000.someone-else.0000").status_code == 401
    sub = backend.native(token).json()["sub"]
    assert backend.native(token).json() == {"error": "identity token already used"}
    assert backend.native(world.mint(), userIdentifier=sub).status_code == 200


def test_malformed_input_is_a_4xx(world, backends):
    backend = backends(world)
    url = f"{backend.url}/api/auth/apple/native"
    assert requests.post(url, data="{not json", headers={"Content-Type": "application/json"}).status_code == 400
    assert requests.post(url, json=[1, 2]).status_code == 400
    assert requests.post(url, json={"identityToken": 42}).status_code == 400
    for token in ("", "a.b", "a.b.c.d", "!!!.???.***", "e30.bm90IGpzb24.", "W10.W10.",
                  "eyJhbGciOiJSUzI1NiIsImtpZCI6WzFdfQ.e30.", "eyJhbGciOiJSUzI1NiJ9.eyJleHAiOiJOYU4ifQ.x"):
        answer = backend.native(token)
        assert 400 <= answer.status_code < 500 and "error" in answer.json(), (token, answer.text)


def test_native_nonce_scheme_raw(world, backends):
    backend = backends(world, NONCE_SCHEME="raw")
    assert backend.native(world.mint(nonce=RAW_NONCE)).status_code == 200
    assert backend.native(world.mint(nonce=HASHED_NONCE)).status_code == 401


def test_code_exchange(world, backends):
    backend = backends(world)
    credential = world.admin("POST", "/native/authorize", {"clientId": BUNDLE_ID, "user": "sam"})
    url = f"{backend.url}/api/auth/apple/code"
    answer = requests.post(url, json={"authorizationCode": credential["authorizationCode"]}, timeout=patient(15))
    assert answer.status_code == 200, answer.text
    assert answer.json()["sub"] == credential["user"]
    again = requests.post(url, json={"authorizationCode": credential["authorizationCode"]}, timeout=patient(15))
    assert again.status_code == 401 and "invalid_grant" in again.json()["error"]
    assert requests.post(url, json={}, timeout=patient(15)).status_code == 400


@pytest.mark.parametrize("bug, status", [("", 200), ("strict-bools", 401)])
def test_string_booleans_from_the_token_endpoint(world, backends, bug, status):
    world.admin("PATCH", "/settings", {"booleanClaimStyle": "string"})
    backend = backends(world, bug)
    credential = {"clientId": BUNDLE_ID, "user": "sam", "scopes": ["name", "email"]}
    code = world.admin("POST", "/native/authorize", credential)["authorizationCode"]
    answer = requests.post(f"{backend.url}/api/auth/apple/code", json={"authorizationCode": code}, timeout=patient(15))
    assert answer.status_code == status, answer.text
    if status == 200:
        assert answer.json()["email"] and answer.json()["emailVerified"] is True
    strings = backend.native(world.mint(set={"email_verified": "true"}))
    assert strings.status_code == status, strings.text


def test_web_sign_in_end_to_end(world, backends):
    backend = backends(world)
    world.register_redirect(backend.redirect_uri)
    browser = requests.Session()
    form = authorize_page(backend, browser)
    done = browser.post(form.action, data=form.fields, timeout=patient(15))
    assert done.status_code == 200 and done.url == f"{backend.url}/welcome", done.text
    assert "signed in as " in done.text
    replay = browser.post(form.action, data=form.fields, allow_redirects=False, timeout=patient(15))
    assert replay.status_code == 401  # the sign-in under way is used up
    assert requests.get(f"{backend.url}/welcome", timeout=patient(5)).status_code == 401
    error = requests.post(form.action, data={"error": "user_cancelled_authorize"}, timeout=patient(5))
    assert error.status_code == 401 and "user_cancelled_authorize" in error.text


@pytest.mark.parametrize("bug, status", [("", 401), ("no-state", 302)])
def test_login_csrf_with_an_attackers_code(world, backends, bug, status):
    backend = backends(world, bug)
    world.register_redirect(backend.redirect_uri)
    attacker = authorize_page(backend, requests.Session(), login_hint="maria")  # never posted by the attacker
    victim = requests.Session()
    authorize_page(backend, victim)  # the victim's own sign-in, under way
    forged = victim.post(attacker.action, data=attacker.fields, allow_redirects=False, timeout=patient(15))
    assert forged.status_code == status, forged.text
    tampered = dict(attacker.fields, state="not-the-state")
    assert victim.post(attacker.action, data=tampered, allow_redirects=False).status_code == 401


@pytest.mark.parametrize("bug, status", [("", 200), ("keys-first", 401)])
def test_token_signed_by_a_key_that_is_not_first(world, backends, bug, status):
    backend = backends(world, bug)
    assert backend.native(world.mint()).status_code == 200
    keys = world.admin("GET", "/keys")["keys"]
    world.admin("POST", f"/keys/{keys[1]['kid']}/sign")
    assert backend.native(world.mint()).status_code == status


@pytest.mark.parametrize("bug, status", [("", 200), ("keys-cached-forever", 401)])
def test_token_signed_by_a_rotated_key(world, backends, bug, status):
    backend = backends(world, bug)
    assert backend.native(world.mint()).status_code == 200  # the JWKS is fetched
    world.admin("POST", "/keys/rotate")
    assert backend.native(world.mint()).status_code == status


def test_unknown_kids_refetch_the_jwks_at_most_once_per_interval(world, backends):
    backend = backends(world, JWKS_MIN_INTERVAL="2")
    assert backend.native(world.mint()).status_code == 200
    tokens = [world.mint_defect("unknown-kid") for _ in range(4)]
    answers = []
    threads = [threading.Thread(target=lambda t=t: answers.append(backend.native(t))) for t in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.status_code for a in answers] == [401] * 4
    def fetches():
        return world.admin("GET", "/journal?endpoint=keys")["entries"]

    wait_until(lambda: len(fetches()) >= 2, 5)
    time.sleep(0.3)  # the journal is written every 100 ms: a third fetch would show by now
    assert len(fetches()) == 2, fetches()  # the first fetch, then one refetch for the four
