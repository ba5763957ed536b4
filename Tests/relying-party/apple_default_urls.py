#!/usr/bin/env python3
"""A relying party that keeps Apple's URLs: it reaches the mock only through name resolution.

Usage: SSL_CERT_FILE=keys/tls/ca.pem REQUESTS_CA_BUNDLE=keys/tls/ca.pem \\
       python3 Tests/relying-party/apple_default_urls.py

Nothing here knows where the mock runs. Every URL is Apple's own, as relying-party code and
libraries hard-code them (PyJWT's `PyJWKClient("https://appleid.apple.com/auth/keys")`, a token
exchange at `https://appleid.apple.com/auth/token`). For it to reach the mock, `appleid.apple.com`
must resolve to the mock (a hosts entry, or a docker-compose network alias) serving with `--tls`,
and the only trust added is the bundled test CA, through the standard environment variables above.
It signs `sam` in (the mock's `login_hint` stands in for the browser), exchanges the code,
verifies the id_token with PyJWT against the JWKS it fetches, refreshes, revokes, and checks the
refresh is then refused. Each check prints one line; the last is `N passed, M failed`, and the exit
status is 1 when anything failed.
"""

import os
import time
import urllib.parse

import certifi
import jwt
import requests

# Apple's URLs, as relying parties keep them.
APPLE_ISSUER = "https://appleid.apple.com"  # also in rp_checks; spelled out here as a backend keeps it
APPLE_DISCOVERY_URL = "https://appleid.apple.com/.well-known/openid-configuration"
APPLE_AUTHORIZE_URL = "https://appleid.apple.com/auth/authorize"
APPLE_TOKEN_URL = "https://appleid.apple.com/auth/token"
APPLE_REVOKE_URL = "https://appleid.apple.com/auth/revoke"
APPLE_KEYS_URL = "https://appleid.apple.com/auth/keys"

from rp_checks import CLIENT_ID, KEY_ID, KEYS_DIR, REDIRECT_URI, REVOKED, TEAM_ID, check, finish


def make_client_secret():
    """Apple's client_secret: an ES256 JWT signed with the team's .p8 key, made with PyJWT."""
    pem = (KEYS_DIR / "developer" / f"AuthKey_{KEY_ID}.p8").read_bytes()
    now = int(time.time())
    claims = {"iss": TEAM_ID, "iat": now, "exp": now + 3600, "aud": APPLE_ISSUER, "sub": CLIENT_ID}
    return jwt.encode(claims, pem, algorithm="ES256", headers={"kid": KEY_ID})


def verify_id_token(keys, token, **options):
    """Verify as a backend does: the key by `kid` from Apple's JWKS URL, RS256, iss, aud, exp."""
    key = keys.get_signing_key_from_jwt(token)
    return jwt.decode(token, key.key, algorithms=["RS256"], audience=CLIENT_ID, issuer=APPLE_ISSUER, **options)


def run():
    """The sign-in, refresh and revoke flow against whatever `appleid.apple.com` resolves to."""
    trust = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("SSL_CERT_FILE")
    check("trust comes from the environment (SSL_CERT_FILE / REQUESTS_CA_BUNDLE)", bool(trust), "neither is set")
    try:
        requests.get(APPLE_KEYS_URL, verify=certifi.where(), timeout=10)
        check("the public CAs do not vouch for this appleid.apple.com", False, "certifi's bundle accepted it")
    except requests.exceptions.SSLError:
        check("the public CAs do not vouch for this appleid.apple.com", True)

    discovery = requests.get(APPLE_DISCOVERY_URL, timeout=10).json()
    check("discovery names Apple's own URLs",
          (discovery.get("issuer"), discovery.get("authorization_endpoint"), discovery.get("token_endpoint"),
           discovery.get("revocation_endpoint"), discovery.get("jwks_uri"))
          == (APPLE_ISSUER, APPLE_AUTHORIZE_URL, APPLE_TOKEN_URL, APPLE_REVOKE_URL, APPLE_KEYS_URL), str(discovery))

    # The browser's part: the mock's login_hint signs sam in without a page.
    state = os.urandom(8).hex()
    authorize = requests.get(APPLE_AUTHORIZE_URL, params={
        "client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI, "response_type": "code", "response_mode": "query",
        "state": state, "login_hint": "sam"}, allow_redirects=False, timeout=10)
    location = urllib.parse.urlsplit(authorize.headers.get("Location", ""))
    query = dict(urllib.parse.parse_qsl(location.query))
    check("authorize redirects to the app with a code",
          authorize.status_code == 302 and location.geturl().startswith(REDIRECT_URI) and bool(query.get("code"))
          and query.get("state") == state, f"{authorize.status_code} {authorize.headers} {authorize.text[:300]}")

    secret = make_client_secret()
    exchange = requests.post(APPLE_TOKEN_URL, data={
        "client_id": CLIENT_ID, "client_secret": secret, "code": query.get("code", ""),
        "grant_type": "authorization_code", "redirect_uri": REDIRECT_URI}, timeout=10)
    token = exchange.json() if exchange.headers.get("Content-Type", "").startswith("application/json") else {}
    check("code exchange at Apple's token URL gives tokens",
          exchange.status_code == 200 and bool(token.get("id_token")) and bool(token.get("refresh_token")),
          f"{exchange.status_code} {exchange.text[:300]}")
    if not token.get("id_token"):
        return

    keys = jwt.PyJWKClient(APPLE_KEYS_URL)
    claims = verify_id_token(keys, token["id_token"])
    header = jwt.get_unverified_header(token["id_token"])
    check("id_token verifies with PyJWKClient on Apple's JWKS URL (RS256, iss, aud, exp)",
          header.get("alg") == "RS256" and bool(claims.get("sub")), str(claims))
    try:
        jwt.decode(token["id_token"], keys.get_signing_key_from_jwt(token["id_token"]).key, algorithms=["RS256"],
                   audience="com.example.other", issuer=APPLE_ISSUER)
        check("an id_token for another audience is refused", False, "accepted")
    except jwt.InvalidAudienceError:
        check("an id_token for another audience is refused", True)

    refresh = requests.post(APPLE_TOKEN_URL, data={
        "client_id": CLIENT_ID, "client_secret": secret, "grant_type": "refresh_token",
        "refresh_token": token["refresh_token"]}, timeout=10)
    renewed = refresh.json() if refresh.status_code == 200 else {}
    check("refresh at Apple's token URL gives a new id_token for the same sub",
          bool(renewed.get("id_token")) and verify_id_token(keys, renewed["id_token"])["sub"] == claims["sub"],
          f"{refresh.status_code} {refresh.text[:300]}")

    revoke = requests.post(APPLE_REVOKE_URL, data={
        "client_id": CLIENT_ID, "client_secret": secret, "token": token["refresh_token"],
        "token_type_hint": "refresh_token"}, timeout=10)
    check("revoke at Apple's revoke URL answers 200 with an empty body",
          revoke.status_code == 200 and revoke.content == b"", f"{revoke.status_code} {revoke.text!r}")
    again = requests.post(APPLE_TOKEN_URL, data={
        "client_id": CLIENT_ID, "client_secret": secret, "grant_type": "refresh_token",
        "refresh_token": token["refresh_token"]}, timeout=10)
    check("the revoked refresh token is refused with Apple's error",
          again.status_code == 400 and again.json() == REVOKED, f"{again.status_code} {again.text}")


if __name__ == "__main__":
    try:
        run()
    except Exception as error:  # noqa: BLE001 - any failure is one failed check, with its cause
        check("the flow ran to the end", False, repr(error))
    finish()
