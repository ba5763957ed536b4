"""apple-id-mock in a container for Python tests: a testcontainers ``DockerContainer`` that waits
for ``/health``, mints client secrets inside the container, and drives the control plane
(``ControlPlane`` does the same for a server you started yourself)."""

from .container import AppleIDMockContainer
from .control_plane import (
    ConformanceFailed,
    ControlPlane,
    ControlPlaneError,
    Namespace,
    assert_conformant,
    describe_verification,
)

__all__ = [
    "AppleIDMockContainer",
    "ConformanceFailed",
    "ControlPlane",
    "ControlPlaneError",
    "Namespace",
    "assert_conformant",
    "describe_verification",
]
