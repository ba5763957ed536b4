"""Fixtures of the module's own tests: the image under test, and a container shared by a module.

The image is ``APPLE_ID_MOCK_IMAGE`` (default ``apple-id-mock:local``, built by
scripts/container-test.sh). Without a container engine the tests are skipped, unless
``APPLE_ID_MOCK_REQUIRE_CONTAINERS=1`` (CI), which makes that a failure."""

import os

import pytest

# Ryuk (testcontainers' reaper) is an image from Docker Hub; every test stops what it starts.
os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")
# Where a /.dockerenv exists (CI sandboxes have one), testcontainers would look for the container
# through a gateway address that podman's Docker API does not list; the mapped port on the
# engine's host is what a test on this machine reaches.
os.environ.setdefault("TESTCONTAINERS_CONNECTION_MODE", "docker_host")

IMAGE = os.environ.get("APPLE_ID_MOCK_IMAGE", "apple-id-mock:local")


def _engine_problem():
    try:
        import docker

        client = docker.from_env()
        client.images.get(IMAGE)
        return None
    except Exception as error:  # noqa: BLE001 - any reason the engine or image is not there
        return f"{type(error).__name__}: {error}"


@pytest.fixture(scope="session")
def image():
    problem = _engine_problem()
    if problem:
        message = f"no container engine with the image {IMAGE} ({problem})"
        if os.environ.get("APPLE_ID_MOCK_REQUIRE_CONTAINERS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return IMAGE


@pytest.fixture(scope="module")
def mock(image):
    from apple_id_mock_testcontainers import AppleIDMockContainer

    with AppleIDMockContainer(image) as container:
        yield container
