"""``namespace()``: a fresh world on a shared server for the ``with`` block, deleted afterwards.

Against a running server (``local_server``: ``APPLE_ID_MOCK_URL`` or this checkout's debug build),
so they run without a container engine; the last test does the same through the container."""

import base64
import json
import os
import re
from pathlib import Path

import pytest
import requests

from apple_id_mock_testcontainers import ControlPlane, ControlPlaneError, Namespace
from local_server import BINARY, local_server
from relying_party import CLIENT_ID, REDIRECT_URI, RelyingParty


@pytest.fixture(scope="module")
def server():
    servers = local_server()
    url = next(servers)
    if url is None:
        pytest.skip("no server: set APPLE_ID_MOCK_URL or build .build/debug/apple-id-mock (swift build)")
    control = ControlPlane(url)
    try:
        control.namespaces()
    except ControlPlaneError as error:
        servers.close()
        if error.status == 404 and not os.environ.get("APPLE_ID_MOCK_URL"):
            pytest.skip(f"{BINARY} predates namespaces: swift build")
        raise
    yield control
    servers.close()


def subject(id_token):
    payload = id_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["sub"]


def names(server):
    return [entry["name"] for entry in server.namespaces()]


def test_two_namespaces_at_once_each_its_own_world(server):
    with server.namespace() as a, server.namespace("py-team-b", idle_ttl_seconds=600) as b:
        assert isinstance(a, Namespace) and b.name == "py-team-b"
        assert b.url == f"{server.url}/ns/py-team-b" and b.path_prefix == "/ns/py-team-b"
        assert b.info["idleTtlSeconds"] == 600 and b.info["pathPrefix"] == "/ns/py-team-b"
        assert {a.name, "py-team-b"} <= set(names(server))

        # A relying party given the namespace's URL signs in there (discovery names prefixed endpoints).
        rp_a = RelyingParty(a.url, a.control_plane.client_secret(CLIENT_ID))
        rp_b = RelyingParty(b.url, b.control_plane.client_secret(CLIENT_ID))
        assert rp_b.discovery["token_endpoint"] == f"{b.url}/auth/token"
        signed_in_a, signed_in_b = rp_a.authorize("sam"), rp_b.authorize("sam")

        # A's clock moves a day; B's does not.
        a.control_plane.advance_clock(86_400)
        assert a.control_plane.clock()["offsetSeconds"] == 86_400
        assert b.control_plane.clock()["offsetSeconds"] == 0
        assert server.clock()["offsetSeconds"] == 0

        # A fault in B: B's token endpoint fails once; A's code has expired on A's clock.
        rule = b.control_plane.add_fault(endpoint="token", status=503, times=1)
        assert [f["id"] for f in b.control_plane.faults()] == [rule["id"]] and a.control_plane.faults() == []
        expired = requests.post(rp_a.discovery["token_endpoint"], data={
            "grant_type": "authorization_code", "code": signed_in_a["fields"]["code"],
            "code_verifier": signed_in_a["verifier"], "redirect_uri": REDIRECT_URI, "client_id": CLIENT_ID,
            "client_secret": a.control_plane.client_secret(CLIENT_ID)}, timeout=10)
        assert expired.status_code == 400 and expired.json()["error"] == "invalid_grant"
        unavailable = requests.post(rp_b.discovery["token_endpoint"], data={
            "grant_type": "authorization_code", "code": signed_in_b["fields"]["code"],
            "code_verifier": signed_in_b["verifier"], "redirect_uri": REDIRECT_URI, "client_id": CLIENT_ID,
            "client_secret": rp_b.session.client_secret}, timeout=10)
        assert unavailable.status_code == 503
        # The rule is spent, and B's code is still good on B's clock.
        _, claims_b = rp_b.exchange(signed_in_b)
        assert claims_b["sub"] != subject(signed_in_a["fields"]["id_token"])  # own identities

        # Each journal holds its own calls.
        assert [e["outcome"] for e in a.control_plane.journal(endpoint="token")] == ["invalid_grant"]
        assert [e["status"] for e in b.control_plane.journal(endpoint="token")] == [200, 503]
        b.control_plane.verify(endpoint="token", fault=rule["id"], exactly=1)
        with pytest.raises(AssertionError, match="near miss"):
            a.control_plane.verify(endpoint="token", fault=rule["id"])
        assert a.control_plane.journal()[0]["namespace"] == a.name

    assert a.name not in names(server) and "py-team-b" not in names(server)


def test_the_header_names_the_namespace_on_unprefixed_urls(server):
    with server.namespace() as ns:
        ns.control_plane.advance_clock(120)
        clock = requests.get(f"{server.url}/__admin/clock", headers=ns.headers, timeout=10).json()
        assert clock["offsetSeconds"] == 120
        secret = ns.control_plane.client_secret(CLIENT_ID)
        page = requests.get(f"{server.url}/auth/authorize", headers=ns.headers, allow_redirects=False, params={
            "client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI, "response_type": "code", "login_hint": "sam"},
            timeout=10)
        code = requests.utils.urlparse(page.headers["Location"]).query.split("code=")[1].split("&")[0]
        # The code was minted in the namespace: it is exchanged there without prefix or header.
        token = requests.post(f"{server.url}/auth/token", data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
            "client_id": CLIENT_ID, "client_secret": secret}, timeout=10)
        assert token.status_code == 200, token.text
        assert len(ns.control_plane.journal(endpoint="token", outcome="ok")) == 1
        assert server.journal(endpoint="token", clientId=CLIENT_ID, outcome="ok", since=clock["now"]) == []


def test_the_namespace_is_deleted_when_the_block_raises(server):
    with pytest.raises(KeyError, match="boom"):
        with server.namespace("py-doomed", scenario="transfer", identities="shared") as ns:
            assert ns.info["scenario"] == "transfer" and ns.info["identities"] == "shared"
            ns.control_plane.advance_clock(60)
            raise KeyError("boom")
    assert "py-doomed" not in names(server)
    with pytest.raises(ControlPlaneError) as missing:
        server.admin("GET", "namespaces/py-doomed")
    assert missing.value.status == 404
    with server.namespace("py-self-deleting"):
        server.admin("DELETE", "namespaces/py-self-deleting")  # gone before the block ends: no error


def test_a_bad_name_or_body_is_the_servers_refusal(server):
    with pytest.raises(ControlPlaneError) as bad_name:
        with server.namespace("not/a name"):
            pass
    assert bad_name.value.status == 400 and "A-Z a-z 0-9" in bad_name.value.body
    with pytest.raises(ControlPlaneError) as bad_body:
        with server.namespace(identities="mine"):
            pass
    assert bad_body.value.status == 400 and "identities" in json.dumps(json.loads(bad_body.value.body))


def test_the_containers_namespace(mock):
    with mock.namespace() as a, mock.namespace() as b:
        assert a.url == f"{mock.get_url()}/ns/{a.name}"
        a.control_plane.advance_clock(3600)
        assert (a.control_plane.clock()["offsetSeconds"], b.control_plane.clock()["offsetSeconds"]) == (3600, 0)
        rp = RelyingParty(b.url, mock.client_secret(CLIENT_ID))
        token, _ = rp.exchange(rp.authorize("sam"))
        assert token["token_type"] == "Bearer"
        assert len(b.control_plane.journal(endpoint="token")) == 1 and a.control_plane.journal(endpoint="token") == []
    assert a.name not in [entry["name"] for entry in mock.namespaces()]


def test_the_readme_namespace_example_runs(server):
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if ".namespace()" in b)
    assert "http://127.0.0.1:8080" in block
    scope = {}
    exec(compile(block.replace("http://127.0.0.1:8080", server.url), "README.md", "exec"), scope)
    ns = scope["ns"]
    assert ns.url == f"{server.url}/ns/{ns.name}" and ns.name not in names(server)
