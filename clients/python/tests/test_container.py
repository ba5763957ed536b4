"""The module against the real image: a relying party signs in through the mapped port, the
control-plane helpers change what it sees, and the options (mounted scenarios, admin token, TLS,
a notification receiver on the host) do what they say."""

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
import requests
from authlib.oidc.core import CodeIDToken

from apple_id_mock_testcontainers import AppleIDMockContainer, ControlPlaneError
from relying_party import CLIENT_ID, RelyingParty

REPOSITORY = Path(__file__).resolve().parents[3]
DEFAULT_SCENARIO = REPOSITORY / "scenarios" / "default.json"
REVOKED = {"error": "invalid_grant", "error_description": "The token has expired or has been revoked."}


def test_a_relying_party_signs_in_refreshes_and_revokes(mock):
    mock.reset()
    rp = RelyingParty(mock.get_url(), mock.client_secret(CLIENT_ID))
    assert rp.discovery["issuer"] == "https://appleid.apple.com"
    assert rp.discovery["token_endpoint"] == f"{mock.get_url()}/auth/token"

    signed_in = rp.authorize("sam")
    token, claims = rp.exchange(signed_in)
    assert claims["email"].endswith("@privaterelay.appleid.com")
    assert json.loads(signed_in["fields"]["user"])["email"] == claims["email"]

    refreshed = rp.refresh(token["refresh_token"])
    assert refreshed.status_code == 200 and "refresh_token" not in refreshed.json()
    rp.verify_id_token(refreshed.json()["id_token"], CodeIDToken, access_token=refreshed.json()["access_token"])

    assert rp.revoke(token["refresh_token"]).status_code == 200
    after = rp.refresh(token["refresh_token"])
    assert (after.status_code, after.json()) == (400, REVOKED)


def test_client_secret_is_minted_inside_with_the_bundled_key(mock):
    secret = mock.client_secret(CLIENT_ID, lifetime=600)
    header = json.loads(base64.urlsafe_b64decode(secret.split(".")[0] + "=="))
    claims = json.loads(base64.urlsafe_b64decode(secret.split(".")[1] + "=="))
    assert (header["alg"], header["kid"]) == ("ES256", "ABC123DEFG")
    assert (claims["iss"], claims["sub"], claims["exp"] - claims["iat"]) == ("DEF123GHIJ", CLIENT_ID, 600)
    with pytest.raises(RuntimeError, match="exited"):
        mock.client_secret("com.unknown.client")


def test_a_consent_revoked_by_the_user_ends_the_refresh_token(mock):
    mock.reset()
    rp = RelyingParty(mock.get_url(), mock.client_secret(CLIENT_ID))
    token, _ = rp.exchange(rp.authorize("sam"))
    mock.account_event("consent-revoked", "sam", "example")
    after = rp.refresh(token["refresh_token"])
    assert (after.status_code, after.json()) == (400, REVOKED)


def test_the_clock_expires_a_code_without_waiting(mock):
    mock.reset()
    rp = RelyingParty(mock.get_url(), mock.client_secret(CLIENT_ID))
    signed_in = rp.authorize("sam")
    mock.advance_clock(301)
    try:
        answer = requests.post(rp.discovery["token_endpoint"], data={
            "grant_type": "authorization_code", "code": signed_in["fields"]["code"],
            "code_verifier": signed_in["verifier"], "redirect_uri": "http://localhost:3000/auth/apple/callback",
            "client_id": CLIENT_ID, "client_secret": mock.client_secret(CLIENT_ID)}, timeout=10)
        assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"
    finally:
        mock.reset_clock()


def test_the_journal_shows_what_the_backend_sent(mock):
    mock.admin("DELETE", "journal")
    rp = RelyingParty(mock.get_url(), mock.client_secret(CLIENT_ID))
    rp.refresh("not-a-token")
    entries = mock.journal(endpoint="token", outcome="error")
    assert entries and entries[0]["endpoint"] == "token"


def test_switching_scenarios_and_an_unknown_one(mock):
    mock.switch_scenario("transfer")
    assert requests.get(f"{mock.get_url()}/__admin/scenario", timeout=10).json()["name"] == "transfer"
    mock.switch_scenario("default")
    with pytest.raises(ControlPlaneError) as refused:
        mock.switch_scenario("no-such-scenario")
    assert refused.value.status in (400, 404)


def test_a_mounted_scenario_file_is_the_active_one(image, tmp_path):
    scenario = json.loads(DEFAULT_SCENARIO.read_text())
    scenario.pop("$schema", None)
    scenario["description"] = "mounted from the host"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(scenario))
    path.chmod(0o644)
    tmp_path.chmod(0o755)
    with AppleIDMockContainer(image, scenarios=path) as mock:
        active = requests.get(f"{mock.get_url()}/__admin/scenario", timeout=10).json()
        assert (active["name"], active["description"]) == ("mine", "mounted from the host")
        # The CLI in the container reads the same folder.
        assert mock.client_secret(CLIENT_ID).count(".") == 2


def test_a_mounted_scenario_folder_replaces_the_bundled_ones(image, tmp_path):
    scenario = json.loads(DEFAULT_SCENARIO.read_text())
    scenario.pop("$schema", None)
    for name in ("alpha", "beta"):
        (tmp_path / f"{name}.json").write_text(json.dumps(scenario))
        (tmp_path / f"{name}.json").chmod(0o644)
    tmp_path.chmod(0o755)
    with AppleIDMockContainer(image, scenarios=tmp_path, scenario="beta") as mock:
        listing = requests.get(f"{mock.get_url()}/__admin/scenarios", timeout=10).json()
        assert listing == {"active": "beta", "available": ["alpha", "beta"]}


def test_the_admin_token_guards_the_control_plane(image):
    with AppleIDMockContainer(image, admin_token="s3cret-for-tests") as mock:
        assert requests.post(f"{mock.get_url()}/__admin/reset", timeout=10).status_code == 401
        mock.reset()
        assert mock.journal(limit=1) is not None


def test_tls_with_the_ca_readable_on_the_host(image):
    with AppleIDMockContainer(image, tls=True) as mock:
        assert mock.get_url().startswith("https://")
        assert "BEGIN CERTIFICATE" in Path(mock.ca_path()).read_text()
        rp = RelyingParty(mock.get_url(), mock.client_secret(CLIENT_ID), verify=mock.ca_path())
        token, claims = rp.exchange(rp.authorize("maria"))
        assert claims["iss"] == "https://appleid.apple.com" and token["refresh_token"]
        with pytest.raises(requests.exceptions.SSLError):
            requests.get(f"{mock.get_url()}/health", timeout=10)


class _Receiver(BaseHTTPRequestHandler):
    """Keeps every POST body; answers 200."""

    bodies = []
    arrived = threading.Event()

    def do_POST(self):  # noqa: N802 - http.server's name
        _Receiver.bodies.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.send_response(200)
        self.end_headers()
        _Receiver.arrived.set()

    def log_message(self, *args):
        pass


def test_notifications_reach_a_receiver_on_the_host(mock):
    server = HTTPServer(("0.0.0.0", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        scenario = json.loads(DEFAULT_SCENARIO.read_text())
        scenario.pop("$schema", None)
        scenario["appGroups"][0]["notificationUrl"] = mock.host_url(port, "/auth/apple/notifications")
        mock.upload_scenario("to-host", scenario, activate=True)
        rp = RelyingParty(mock.get_url(), mock.client_secret(CLIENT_ID))
        rp.exchange(rp.authorize("sam"))
        mock.account_event("consent-revoked", "sam", "example")
        assert _Receiver.arrived.wait(15), mock.notifications()
        assert json.loads(_Receiver.bodies[0]).get("payload", "").count(".") == 2
        assert mock.notifications()[0]["status"] == "delivered"
    finally:
        server.shutdown()
        mock.switch_scenario("default")



def test_the_mail_relay_over_the_mapped_smtp_port(image):
    import smtplib

    with AppleIDMockContainer(image, smtp=True) as apple:
        apple.admin("POST", "native/authorize", json_body={"clientId": "com.example.app", "user": "sam",
                                                                 "scopes": ["name", "email"]})
        relay = apple.relay_address("sam", "example")
        host, port = apple.smtp_address()
        with smtplib.SMTP(host, port, timeout=15) as client:
            client.sendmail("news@example.com", [relay],
                            f"From: <news@example.com>\r\nTo: <{relay}>\r\nSubject: hi\r\n\r\nhello\r\n")
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                client.sendmail("x@unregistered.example", [relay], "Subject: no\r\n\r\nno\r\n")
        [relayed] = apple.wait_for_mail(outcome="relayed")
        assert relayed["deliveredTo"] == "sam.lee@example.org"
        assert "Delivered-To: sam.lee@example.org" in apple.raw_mail(relayed["id"])
        assert apple.wait_for_mail(outcome="unauthorized_sender")[0]["reason"]
