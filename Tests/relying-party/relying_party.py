#!/usr/bin/env python3
"""An independent relying party for apple-id-mock, written with Authlib.

Usage: python3 Tests/relying-party/relying_party.py http://127.0.0.1:8080

It plays a web backend that signs users in with Apple, and knows nothing of the mock's Swift
code: every endpoint comes from the discovery document, the client_secret is made here with
Authlib's JOSE, and every id_token is checked by Authlib's OpenID Connect claim classes (signature
by `kid` from the JWKS, iss, aud, exp, nonce, at_hash / c_hash). The flow is the one in Apple's
docs: authorize (form_post, PKCE) -> code exchange -> refresh -> revoke -> refresh refused ->
the next authorization is a first one again. Each check prints one line; the last line is
`N passed, M failed`, and the exit status is 1 when anything failed.
"""

import json
import sys
import time
import warnings
from html.parser import HTMLParser

import requests
from authlib.deprecate import AuthlibDeprecationWarning

# authlib.jose is deprecated in favour of joserfc but is what this test is asked to exercise.
warnings.filterwarnings("ignore", category=AuthlibDeprecationWarning)

from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
from authlib.jose import JsonWebKey, JsonWebToken  # noqa: E402
from authlib.oauth2.rfc7636 import create_s256_code_challenge  # noqa: E402
from authlib.oidc.core import CodeIDToken, HybridIDToken  # noqa: E402

from rp_checks import (  # noqa: E402
    APPLE_ISSUER, CLIENT_ID, KEY_ID, KEYS_DIR, REDIRECT_URI, REVOKED, TEAM_ID, check, finish)

RELAY_DOMAIN = "@privaterelay.appleid.com"


class FormParser(HTMLParser):
    """Collects the first form's method and action, and its inputs' names and (unescaped) values."""

    def __init__(self):
        super().__init__()
        self.form, self.fields = None, {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and self.form is None:
            self.form = attrs
        elif tag == "input" and attrs.get("name"):
            self.fields[attrs["name"]] = attrs.get("value", "")


def make_client_secret():
    """Apple's client_secret: an ES256 JWT signed with the team's .p8 key, one hour long."""
    pem = (KEYS_DIR / "developer" / f"AuthKey_{KEY_ID}.p8").read_bytes()
    now = int(time.time())
    claims = {"iss": TEAM_ID, "iat": now, "exp": now + 3600, "aud": APPLE_ISSUER, "sub": CLIENT_ID}
    return JsonWebToken(["ES256"]).encode({"alg": "ES256", "kid": KEY_ID}, claims, pem).decode()


def decode_id_token(token, keys, claims_cls, **params):
    """Verify an id_token as an OIDC client does: RS256 by kid, then iss, aud, exp, nonce, hashes."""
    claims = JsonWebToken(["RS256"]).decode(
        token,
        keys,
        claims_cls=claims_cls,
        claims_options={
            "iss": {"essential": True, "value": APPLE_ISSUER},
            "aud": {"essential": True, "value": CLIENT_ID},
        },
        claims_params=params,
    )
    claims.validate()
    return claims


def authorize(session, endpoint, login_hint):
    """Sign in as `login_hint` with response_type "code id_token" and form_post, with PKCE S256.

    Returns (fields of the form_post page, nonce, code_verifier)."""
    state, nonce, verifier = generate_token(20), generate_token(20), generate_token(48)
    url, _ = session.create_authorization_url(
        endpoint, state=state, response_type="code id_token", response_mode="form_post",
        scope="name email", nonce=nonce, login_hint=login_hint,
        code_challenge=create_s256_code_challenge(verifier), code_challenge_method="S256")
    response = requests.get(url, allow_redirects=False, timeout=10)
    page = FormParser()
    page.feed(response.text)
    check("authorize answers 200 with an HTML page", response.status_code == 200
          and response.headers.get("Content-Type", "").startswith("text/html"),
          f"{response.status_code} {response.text[:300]}")
    form = page.form or {}
    check("form_post page posts to the redirect_uri",
          form.get("method", "").lower() == "post" and form.get("action") == REDIRECT_URI, str(form))
    check("form_post carries code and id_token", bool(page.fields.get("code") and page.fields.get("id_token")),
          str(sorted(page.fields)))
    check("state is echoed unchanged", page.fields.get("state") == state, f"{page.fields.get('state')!r}")
    return page.fields, nonce, verifier


def run(base):
    """The whole web flow against the server at `base`; each step's checks are printed."""
    discovery = requests.get(f"{base}/.well-known/openid-configuration", timeout=10).json()
    check("discovery issuer is Apple's", discovery.get("issuer") == APPLE_ISSUER, discovery.get("issuer"))
    check("discovery offers client_secret_post and RS256",
          discovery.get("token_endpoint_auth_methods_supported") == ["client_secret_post"]
          and "RS256" in discovery.get("id_token_signing_alg_values_supported", []), json.dumps(discovery))
    reset = requests.post(f"{base}/__admin/reset", timeout=10)
    check("admin reset succeeds", reset.ok, f"{reset.status_code} {reset.text}")

    jwks = requests.get(discovery["jwks_uri"], timeout=10).json()
    keys = JsonWebKey.import_key_set(jwks)
    check("JWKS holds RSA RS256 signing keys", bool(jwks.get("keys")) and all(
        k.get("kty") == "RSA" and k.get("alg") == "RS256" and k.get("use") == "sig" for k in jwks["keys"]),
        json.dumps(jwks)[:300])
    scenario = requests.get(f"{base}/__admin/scenario", timeout=10).json()
    sam = next(u for u in scenario["users"] if u["key"] == "sam")
    identity = next(i for i in sam["identities"] if i["teamId"] == TEAM_ID)

    session = OAuth2Session(
        CLIENT_ID, make_client_secret(), redirect_uri=REDIRECT_URI,
        token_endpoint_auth_method="client_secret_post", revocation_endpoint_auth_method="client_secret_post")
    raw = {}
    session.register_compliance_hook("access_token_response", lambda r: raw.update(code=r) or r)
    session.register_compliance_hook("refresh_token_response", lambda r: raw.update(refresh=r) or r)

    # 1. Authorization: the first one for this app, so the `user` JSON comes along.
    fields, nonce, verifier = authorize(session, discovery["authorization_endpoint"], "sam")
    user = json.loads(fields.get("user") or "null")
    check("first authorization sends `user` with name and relay email",
          isinstance(user, dict) and user.get("name") == sam["name"] and user.get("email") == identity["relayEmail"]
          and user["email"].endswith(RELAY_DOMAIN), f"{user!r}")
    front = decode_id_token(fields["id_token"], keys, HybridIDToken, nonce=nonce, code=fields["code"])
    check("authorize id_token verifies (signature, iss, aud, exp, nonce, c_hash)",
          "c_hash" in front and "at_hash" not in front, json.dumps(front))
    check("authorize id_token names sam's team-scoped sub", front["sub"] == identity["sub"], front["sub"])

    # 2. Code exchange with client_secret_post and the PKCE verifier.
    token = session.fetch_token(discovery["token_endpoint"], code=fields["code"], code_verifier=verifier)
    check("code exchange gives Bearer tokens with a refresh_token",
          token.get("token_type") == "Bearer" and token.get("expires_in") == 3600 and bool(token.get("refresh_token")),
          raw["code"].text)
    check("token response is not cached", raw["code"].headers.get("Cache-Control") == "no-store",
          str(raw["code"].headers))
    claims = decode_id_token(token["id_token"], keys, CodeIDToken, nonce=nonce, access_token=token["access_token"])
    check("token id_token verifies (signature, iss, aud, exp, nonce, at_hash)", "at_hash" in claims, json.dumps(claims))
    check("token id_token header is kid+alg of a published key",
          claims.header.get("alg") == "RS256" and claims.header.get("kid") in {k["kid"] for k in jwks["keys"]},
          str(claims.header))
    check("token id_token: same sub, relay email, is_private_email true",
          claims["sub"] == identity["sub"] and claims.get("email") == identity["relayEmail"]
          and claims.get("is_private_email") is True and claims.get("email_verified") is True, json.dumps(claims))
    try:
        decode_id_token(token["id_token"], keys, CodeIDToken, nonce="another-nonce")
        check("a wrong nonce is refused", False, "validated")
    except Exception as error:  # noqa: BLE001 - any refusal will do
        check("a wrong nonce is refused", "nonce" in str(error), repr(error))

    # 3. Refresh: Apple keeps the old refresh token and sends none.
    refresh_token = token["refresh_token"]
    refreshed = session.refresh_token(discovery["token_endpoint"], refresh_token=refresh_token)
    body = raw["refresh"].json()
    check("refresh response has no refresh_token", raw["refresh"].status_code == 200 and "refresh_token" not in body,
          raw["refresh"].text)
    check("refresh gives a new access token", refreshed["access_token"] != token["access_token"], "same token")
    renewed = decode_id_token(body["id_token"], keys, CodeIDToken, access_token=body["access_token"])
    check("refresh id_token verifies with at_hash of the new access token",
          "at_hash" in renewed and renewed["sub"] == identity["sub"], json.dumps(renewed))

    # 4. Revoke, then the refresh token is dead.
    revoke = session.revoke_token(discovery["revocation_endpoint"], token=refresh_token,
                                  token_type_hint="refresh_token")
    check("revoke answers 200 with an empty body", revoke.status_code == 200 and revoke.content == b"",
          f"{revoke.status_code} {revoke.text!r}")
    try:
        session.refresh_token(discovery["token_endpoint"], refresh_token=refresh_token)
    except Exception:  # noqa: BLE001 - Authlib raises AppleError; the raw response is what we check
        pass
    check("refresh after revoke is 400 invalid_grant",
          raw["refresh"].status_code == 400 and raw["refresh"].json() == REVOKED,
          f"{raw['refresh'].status_code} {raw['refresh'].text}")

    # 5. The next authorization is a first one again.
    fields, nonce, _ = authorize(session, discovery["authorization_endpoint"], "sam")
    check("after revoke the `user` field comes back", bool(fields.get("user")), str(sorted(fields)))
    decode_id_token(fields["id_token"], keys, HybridIDToken, nonce=nonce, code=fields["code"])
    check("second authorize id_token verifies", True)


def main():
    """Run the flow, turning an unexpected exception into one failed check, and print the tally."""
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} BASE_URL   (e.g. http://127.0.0.1:8080)")
    try:
        run(sys.argv[1].rstrip("/"))
    except Exception as error:  # noqa: BLE001 - report and count, never a bare traceback
        check("flow ran to the end", False, f"{type(error).__name__}: {error}")
    finish()


if __name__ == "__main__":
    main()
