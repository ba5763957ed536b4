"""One apple-id-mock for every pytest-xdist worker, and a fresh namespace of it for every test.

The server is ``APPLE_ID_MOCK_URL`` when set (CI starts one server before ``pytest -n 4``).
Otherwise the controlling pytest process starts ONE container (the image ``APPLE_ID_MOCK_IMAGE``,
default ``apple-id-mock:local``) before the workers start, hands its URL to each worker through
xdist's ``workerinput``, and stops it when the run ends: one owner, so no worker can stop it while
another still uses it."""

import os
import re

import pytest

from apple_id_mock_testcontainers import ControlPlane

URL_VARIABLE = "APPLE_ID_MOCK_URL"
WORKER_INPUT_KEY = "apple_id_mock_url"


class _HandTheURLToWorkers:
    """xdist's hook, registered only when xdist runs: each worker gets the container's URL."""

    def __init__(self, url):
        self.url = url

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node):
        node.workerinput[WORKER_INPUT_KEY] = self.url


def pytest_configure(config):
    if hasattr(config, "workerinput") or os.environ.get(URL_VARIABLE):
        return  # a worker (the controller has the URL for it), or a server given from outside
    if config.option.collectonly:
        return
    from apple_id_mock_testcontainers import AppleIDMockContainer

    # Ryuk (testcontainers' reaper) is an image from Docker Hub; the container is stopped below.
    os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")
    container = AppleIDMockContainer(os.environ.get("APPLE_ID_MOCK_IMAGE", "apple-id-mock:local"))
    container.start()
    config._apple_id_mock_container = container
    config._apple_id_mock_url = container.get_url()
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_HandTheURLToWorkers(container.get_url()), "apple-id-mock-url")


def pytest_unconfigure(config):
    container = getattr(config, "_apple_id_mock_container", None)
    if container is not None:
        container.stop()


@pytest.fixture(scope="session")
def server(pytestconfig):
    """The control plane of the one server every worker shares (its default namespace)."""
    url = (
        os.environ.get(URL_VARIABLE)
        or getattr(pytestconfig, "workerinput", {}).get(WORKER_INPUT_KEY)
        or getattr(pytestconfig, "_apple_id_mock_url", None)
    )
    if not url:
        pytest.fail(f"no server: set {URL_VARIABLE}, or let the example start a container")
    return ControlPlane(url)


@pytest.fixture
def worker(request):
    """The xdist worker running the test (``gw0``, ``gw1``, …), or ``main`` without xdist."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


@pytest.fixture
def namespace(server, worker, request):
    """A fresh namespace for one test, named after its worker and test, deleted afterwards."""
    test = re.sub(r"[^A-Za-z0-9._-]", "-", request.node.name)
    # A name is 1 to 64 of A-Z a-z 0-9 . _ -, beginning and ending with a letter or digit.
    with server.namespace(f"{worker}-{test}"[:64].rstrip("._-")) as ns:
        yield ns
