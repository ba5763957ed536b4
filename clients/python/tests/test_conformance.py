"""``conformance(config)`` and ``assert_conformant``: a backend conformance run driven from Python,
against a running server (``local_server``); the backend here is an address nobody listens on, so
every case that could be sent is ``INCONCLUSIVE`` and the assertion names them."""

import socket

import pytest

from apple_id_mock_testcontainers import ConformanceFailed, ControlPlane, ControlPlaneError, assert_conformant
from local_server import local_server


@pytest.fixture(scope="module")
def server():
    servers = local_server()
    url = next(servers)
    if url is None:
        pytest.skip("no server: set APPLE_ID_MOCK_URL or build .build/debug/apple-id-mock (swift build)")
    yield ControlPlane(url)
    servers.close()


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def config(url):
    return {
        "clientId": "com.example.app",
        "native": {"url": url, "body": '{"identityToken": "{{identityToken}}"}'},
    }


def test_an_unreachable_backend_is_inconclusive_and_named(server):
    try:
        server.namespaces()
    except ControlPlaneError as error:
        pytest.skip(f"the server predates namespaces: {error}")
    report = server.conformance(config(f"http://127.0.0.1:{closed_port()}/login"), timeout=120)
    assert report["state"] == "finished"
    baseline = report["cases"][0]
    assert (baseline["id"], baseline["verdict"]) == ("ok-baseline", "INCONCLUSIVE")
    assert baseline["response"]["error"]
    with pytest.raises(ConformanceFailed) as failed:
        assert_conformant(report)
    assert "INCONCLUSIVE native ok-baseline" in str(failed.value)
    assert failed.value.failing[0]["id"] == "ok-baseline"


def test_a_bad_config_is_the_servers_refusal(server):
    body = config("http://127.0.0.1:1/login")
    body["native"]["body"] = "{}"
    with pytest.raises(ControlPlaneError) as refused:
        server.conformance(body)
    assert refused.value.status == 400
    assert "$.native.body" in refused.value.body
