"""The apple-id-mock container and the control-plane calls a test needs most."""

from __future__ import annotations

import os
import shlex
import tempfile
import time
from pathlib import Path
from typing import Any, Optional, Union

import requests
from testcontainers.core.container import DockerContainer

from .control_plane import ControlPlaneCalls, admin_call

PathLike = Union[str, "os.PathLike[str]"]

# Where the image keeps its bundled files (the Dockerfile's WORKDIR is /app).
_APP_DIR = "/app"
_MOUNTED_SCENARIOS = "/app/mounted-scenarios"


class AppleIDMockContainer(ControlPlaneCalls, DockerContainer):
    """apple-id-mock (a stand-in for appleid.apple.com) in a container, ready once ``/health`` answers.

    ``scenarios`` mounts a scenario file or folder of the host (read-only) in place of the bundled
    ones; ``scenario`` names the one active at start (default: the mounted file's name, else
    ``default``). ``admin_token`` protects the control plane (the helpers send it). ``tls`` serves
    HTTPS with the bundled test certificate; ``ca_path()`` gives its CA on the host.
    ``state`` is the ``--state`` value (``memory`` unless given). Relying parties reach the mock at
    ``get_url()``; notification receivers on the host are reached by the mock at ``host_url(port)``
    (listen on 0.0.0.0 there). ``smtp=True`` turns the private email relay on (SMTP on
    ``SMTP_PORT``; ``smtp_address()`` gives the mapped host and port); ``smtp_forward`` and
    ``smtp_outbound`` name the team's own SMTP server (``host:port`` as the container reaches it).
    """

    PORT = 8080
    SMTP_PORT = 2525

    def __init__(
        self,
        image: str = "apple-id-mock:local",
        *,
        scenario: Optional[str] = None,
        scenarios: Optional[PathLike] = None,
        admin_token: Optional[str] = None,
        tls: bool = False,
        state: Optional[str] = None,
        log_level: Optional[str] = None,
        smtp: bool = False,
        smtp_forward: Optional[str] = None,
        smtp_outbound: Optional[str] = None,
        startup_timeout: float = 30.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(image, **kwargs)
        self.admin_token = admin_token
        self.tls = tls
        self.startup_timeout = startup_timeout
        self._ca_file: Optional[str] = None
        self._host_alias: Optional[str] = None
        self.with_exposed_ports(self.PORT)
        self.with_env("APPLE_ID_MOCK_HOST", "0.0.0.0")
        self.with_env("APPLE_ID_MOCK_PORT", str(self.PORT))
        if scenarios is not None:
            source = Path(scenarios).resolve()
            if not source.exists():
                raise FileNotFoundError(f"scenarios: {source} does not exist")
            if source.is_file():
                self.with_volume_mapping(str(source), f"{_MOUNTED_SCENARIOS}/{source.name}", "ro")
                scenario = scenario or source.stem
            else:
                self.with_volume_mapping(str(source), _MOUNTED_SCENARIOS, "ro")
            self.with_env("APPLE_ID_MOCK_SCENARIOS_DIR", _MOUNTED_SCENARIOS)
        if scenario:
            self.with_env("APPLE_ID_MOCK_SCENARIO", scenario)
        if admin_token:
            # By environment, not by flag: a flag would show in the host's process list.
            self.with_env("APPLE_ID_MOCK_ADMIN_TOKEN", admin_token)
        if state:
            self.with_env("APPLE_ID_MOCK_STATE", state)
        if log_level:
            self.with_env("APPLE_ID_MOCK_LOG_LEVEL", log_level)
        self.smtp = smtp
        if smtp:
            self.with_exposed_ports(self.SMTP_PORT)
            self.with_env("APPLE_ID_MOCK_SMTP_PORT", str(self.SMTP_PORT))
        if smtp_forward:
            self.with_env("APPLE_ID_MOCK_SMTP_FORWARD", smtp_forward)
        if smtp_outbound:
            self.with_env("APPLE_ID_MOCK_SMTP_OUTBOUND", smtp_outbound)
        self.with_command(["serve", "--tls"] if tls else ["serve"])

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self) -> "AppleIDMockContainer":
        """Start the container and wait until ``GET /health`` answers 200."""
        if not self._is_podman():
            # Docker on Linux names the host only when asked; Podman adds host.containers.internal.
            self.with_kwargs(extra_hosts={"host.docker.internal": "host-gateway"})
        super().start()
        self._wait_for_health()
        return self

    def stop(self, force: bool = True, delete_volume: bool = True) -> None:
        """Stop and remove the container, and the CA file ``ca_path()`` wrote."""
        if self._ca_file:
            Path(self._ca_file).unlink(missing_ok=True)
            self._ca_file = None
        super().stop(force=force, delete_volume=delete_volume)

    def _is_podman(self) -> bool:
        try:
            components = self.get_docker_client().client.version().get("Components", [])
        except Exception:  # noqa: BLE001 - an engine that does not say is taken for Docker
            return False
        return any("podman" in str(c.get("Name", "")).lower() for c in components)

    def _wait_for_health(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        last = "no answer yet"
        while time.monotonic() < deadline:
            try:
                answer = requests.get(self.get_url() + "/health", timeout=2, verify=self._verify())
                if answer.status_code == 200:
                    return
                last = f"{answer.status_code} {answer.text[:200]}"
            except (requests.ConnectionError, requests.Timeout) as error:
                last = str(error)
            except Exception as error:  # noqa: BLE001 - e.g. the container not mapped yet
                last = repr(error)
            time.sleep(0.1)
        stdout, stderr = self.get_logs()
        raise TimeoutError(
            f"apple-id-mock did not answer /health within {self.startup_timeout} s ({last}); "
            f"its log:\n{(stdout + stderr).decode(errors='replace')[-2000:]}"
        )

    # --- addresses -----------------------------------------------------------------------------

    def get_url(self) -> str:
        """The base URL on the mapped port, e.g. ``http://localhost:32768`` (``https`` with tls)."""
        host = self.get_container_host_ip()
        port = self.get_exposed_port(self.PORT)
        return f"{'https' if self.tls else 'http'}://{host}:{port}"

    def host_url(self, port: int, path: str = "/") -> str:
        """A URL on the host as the container reaches it, for notification receivers in scenarios."""
        if self._host_alias is None:
            self._host_alias = "host.containers.internal" if self._is_podman() else "host.docker.internal"
        return f"http://{self._host_alias}:{port}/{path.lstrip('/')}"

    def ca_pem(self) -> str:
        """The test CA that signed the ``--tls`` certificate, read from inside the container."""
        return self._exec(["sh", "-c", 'cat "${APPLE_ID_MOCK_KEYS_DIR:-keys}/tls/ca.pem"'])

    def ca_path(self) -> str:
        """A file on the host holding ``ca_pem()``: pass it as ``verify=`` or ``SSL_CERT_FILE``."""
        if self._ca_file is None:
            handle, name = tempfile.mkstemp(prefix="apple-id-mock-ca-", suffix=".pem")
            with os.fdopen(handle, "w") as file:
                file.write(self.ca_pem())
            self._ca_file = name
        return self._ca_file

    def _verify(self) -> Union[bool, str]:
        return self.ca_path() if self.tls else True

    # --- inside the container ------------------------------------------------------------------

    def client_secret(self, client_id: str, *, lifetime: Optional[int] = None, team: Optional[str] = None) -> str:
        """A valid ``client_secret`` for ``client_id``, minted inside the container with the
        bundled developer key of its team (``apple-id-mock client-secret``)."""
        command = ["apple-id-mock", "client-secret", "--client-id", client_id]
        if lifetime is not None:
            command += ["--lifetime", str(lifetime)]
        if team is not None:
            command += ["--team", team]
        return self._exec(command).strip()

    def _exec(self, command: list) -> str:
        result = self.exec(command)
        output = result.output.decode(errors="replace") if result.output else ""
        if result.exit_code != 0:
            raise RuntimeError(f"{shlex.join(command)} exited {result.exit_code}: {output.strip()}")
        return output

    # --- the control plane ---------------------------------------------------------------------

    def admin(self, method: str, path: str, *, json_body: Any = None, params: Optional[dict] = None) -> Any:
        """One control-plane call (``path`` under ``/__admin/``); returns the JSON answer, or None
        for an empty one, and raises ``ControlPlaneError`` on an error status."""
        root = self.get_url()
        return admin_call(
            method, root, path, root=root, token=self.admin_token, verify=self._verify(), json_body=json_body,
            params=params)

    def _namespace_root(self) -> "tuple[str, Optional[str], Union[bool, str]]":
        return self.get_url(), self.admin_token, self._verify()

    # --- the private email relay ------------------------------------------------------------------

    def smtp_address(self) -> "tuple[str, int]":
        """(host, port) of the relay's SMTP listener on the mapped port (start with ``smtp=True``)."""
        if not self.smtp:
            raise RuntimeError("start the container with smtp=True to get the SMTP relay")
        return self.get_container_host_ip(), int(self.get_exposed_port(self.SMTP_PORT))
