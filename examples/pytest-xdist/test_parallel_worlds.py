"""Many tests at once on one mock, each in its own namespace: each moves its clock, makes Apple's
token endpoint fail, signs a user in, and finds only its own doings in its world. Run them with
``pytest -n 4``: if anything crossed a namespace boundary, a count, an offset or a status here
would be another test's."""

import base64
import json
from urllib.parse import parse_qs, urlparse

import pytest
import requests

WEB = "com.example.web"  # from the bundled default scenario
CALLBACK = "http://localhost:3000/auth/apple/callback"
ROUNDS = range(12)


def authorize(base, user, headers=None):
    """Signs ``user`` in as a browser would (``login_hint`` skips the consent page); returns the code."""
    answer = requests.get(f"{base}/auth/authorize", headers=headers, allow_redirects=False, timeout=10, params={
        "client_id": WEB, "redirect_uri": CALLBACK, "response_type": "code", "login_hint": user})
    assert answer.status_code == 302, answer.text
    return parse_qs(urlparse(answer.headers["Location"]).query)["code"][0]


def exchange(base, code, secret, headers=None):
    """The backend's code exchange at ``/auth/token``."""
    return requests.post(f"{base}/auth/token", headers=headers, timeout=10, data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "client_id": WEB,
        "client_secret": secret})


def claims(id_token):
    payload = id_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


@pytest.mark.parametrize("round_", ROUNDS)
def test_a_world_of_its_own_through_the_prefix(namespace, round_):
    """The backend under test would be given ``namespace.url``: Apple's URLs under ``/ns/{name}``."""
    control = namespace.control_plane
    # This world's clock stands still at an instant of its own, then moves by an amount of its own.
    control.admin("POST", "clock", json_body={"freeze": True})
    control.set_clock(1_900_000_000 + 86_400 * round_)
    control.advance_clock(60 * (round_ + 1))
    now = 1_900_000_000 + 86_400 * round_ + 60 * (round_ + 1)
    rule = control.add_fault(endpoint="token", status=503, times=1)
    secret = control.client_secret(WEB)

    code = authorize(namespace.url, "sam")
    assert exchange(namespace.url, code, secret).status_code == 503  # this world's fault, once
    token = exchange(namespace.url, code, secret)
    assert token.status_code == 200, token.text
    id_token = claims(token.json()["id_token"])
    assert id_token["aud"] == WEB

    # Only this test's clock, faults and calls are here, whatever the other workers did meanwhile.
    assert id_token["iat"] == now == control.clock()["now"]  # issued on this world's clock
    assert [(f["id"], f["fired"], f["remaining"]) for f in control.faults()] == [(rule["id"], 1, 0)]
    calls = control.journal()
    assert [(c["endpoint"], c["status"]) for c in reversed(calls)] == [
        ("authorize", 302), ("token", 503), ("token", 200)]
    assert {c["namespace"] for c in calls} == {namespace.name}
    control.verify(endpoint="token", outcome="ok", user=id_token["sub"], exactly=1)


@pytest.mark.parametrize("round_", ROUNDS)
def test_a_world_of_its_own_through_the_header(server, namespace, round_):
    """Test code that keeps the server's plain URLs names its namespace with a header; the code the
    mock issued there is exchanged there even without it (as a backend with Apple's URLs does)."""
    control = namespace.control_plane
    code = authorize(server.url, "maria", headers=namespace.headers)
    control.advance_clock(301)  # past the code's five minutes, in this world only
    expired = exchange(server.url, code, control.client_secret(WEB))
    assert expired.status_code == 400 and expired.json()["error"] == "invalid_grant"

    control.add_fault(endpoint="authorize", status=500, times=round_ + 1)
    for _ in range(round_ + 1):
        failing = requests.get(f"{server.url}/auth/authorize", headers=namespace.headers, allow_redirects=False,
                               timeout=10, params={"client_id": WEB, "redirect_uri": CALLBACK,
                                                   "response_type": "code", "login_hint": "maria"})
        assert failing.status_code == 500
    fresh = exchange(server.url, authorize(server.url, "maria", headers=namespace.headers),
                     control.client_secret(WEB))
    assert fresh.status_code == 200, fresh.text

    assert control.clock()["offsetSeconds"] == 301
    outcomes = [(c["endpoint"], c["status"]) for c in reversed(control.journal())]
    assert outcomes == [("authorize", 302), ("token", 400)] + [("authorize", 500)] * (round_ + 1) + [
        ("authorize", 302), ("token", 200)]
