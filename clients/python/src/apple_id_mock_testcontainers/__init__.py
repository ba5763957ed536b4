"""apple-id-mock in a container for Python tests: a testcontainers ``DockerContainer`` that waits
for ``/health``, mints client secrets inside the container, and drives the control plane."""

from .container import AppleIDMockContainer, ControlPlaneError

__all__ = ["AppleIDMockContainer", "ControlPlaneError"]
