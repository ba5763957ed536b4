"""A small web relying party written with Authlib, as a Python backend would sign users in with
Apple: authorize (form_post, PKCE, nonce), code exchange, refresh and revoke, every id_token
verified against the JWKS by kid, with iss, aud, exp, nonce and the hashes checked."""

import warnings
from html.parser import HTMLParser

import requests
from authlib.deprecate import AuthlibDeprecationWarning

# authlib.jose is deprecated in favour of joserfc, but it is what many backends still use.
warnings.filterwarnings("ignore", category=AuthlibDeprecationWarning)

from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
from authlib.jose import JsonWebKey, JsonWebToken  # noqa: E402
from authlib.oauth2.rfc7636 import create_s256_code_challenge  # noqa: E402
from authlib.oidc.core import CodeIDToken, HybridIDToken  # noqa: E402

APPLE_ISSUER = "https://appleid.apple.com"
CLIENT_ID = "com.example.web"
REDIRECT_URI = "http://localhost:3000/auth/apple/callback"


class _FormFields(HTMLParser):
    """The inputs of the form_post page, by name."""

    def __init__(self):
        super().__init__()
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("name"):
            self.fields[attrs["name"]] = attrs.get("value", "")


class RelyingParty:
    """Signs in at the mock whose base URL is given, with the client secret given."""

    def __init__(self, base_url, client_secret, verify=True):
        self.verify = verify
        self.discovery = requests.get(f"{base_url}/.well-known/openid-configuration", timeout=10, verify=verify).json()
        self.session = OAuth2Session(
            CLIENT_ID, client_secret, redirect_uri=REDIRECT_URI,
            token_endpoint_auth_method="client_secret_post",
            revocation_endpoint_auth_method="client_secret_post")

    def keys(self):
        jwks = requests.get(self.discovery["jwks_uri"], timeout=10, verify=self.verify).json()
        return JsonWebKey.import_key_set(jwks)

    def verify_id_token(self, token, claims_cls, **params):
        claims = JsonWebToken(["RS256"]).decode(
            token, self.keys(), claims_cls=claims_cls,
            claims_options={"iss": {"essential": True, "value": APPLE_ISSUER},
                            "aud": {"essential": True, "value": CLIENT_ID}},
            claims_params=params)
        claims.validate()
        return claims

    def authorize(self, login_hint):
        """Sign in as `login_hint`; returns the form_post fields, after checking the id_token."""
        state, nonce, verifier = generate_token(20), generate_token(20), generate_token(48)
        url, _ = self.session.create_authorization_url(
            self.discovery["authorization_endpoint"], state=state, response_type="code id_token",
            response_mode="form_post", scope="name email", nonce=nonce, login_hint=login_hint,
            code_challenge=create_s256_code_challenge(verifier), code_challenge_method="S256")
        page = requests.get(url, allow_redirects=False, timeout=10, verify=self.verify)
        assert page.status_code == 200, page.text[:300]
        form = _FormFields()
        form.feed(page.text)
        fields = form.fields
        assert fields.get("state") == state
        self.verify_id_token(fields["id_token"], HybridIDToken, nonce=nonce, code=fields["code"])
        return {"fields": fields, "nonce": nonce, "verifier": verifier}

    def exchange(self, signed_in):
        token = self.session.fetch_token(
            self.discovery["token_endpoint"], code=signed_in["fields"]["code"], code_verifier=signed_in["verifier"],
            verify=self.verify)
        claims = self.verify_id_token(
            token["id_token"], CodeIDToken, nonce=signed_in["nonce"], access_token=token["access_token"])
        return token, claims

    def refresh(self, refresh_token):
        return requests.post(self.discovery["token_endpoint"], data={
            "grant_type": "refresh_token", "refresh_token": refresh_token,
            "client_id": CLIENT_ID, "client_secret": self.session.client_secret}, timeout=10, verify=self.verify)

    def revoke(self, refresh_token):
        return self.session.revoke_token(
            self.discovery["revocation_endpoint"], token=refresh_token, token_type_hint="refresh_token",
            verify=self.verify)
