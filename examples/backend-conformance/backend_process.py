"""backend.py as a child process, and the conformance run's config for it: what this example's
tests and the dashboard's browser tests (Tests/browser/test_conformance_tab.py) both start. A
module of its own, not a conftest, so that either suite imports it without loading the other's
fixtures."""

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "Tests"))
from pyharness import free_port, stop_process, wait_until  # noqa: E402

# Started by the Swift suite (Foundation's Process), python3 inherits a signal mask with SIGTERM
# blocked, and every process it starts would too: `terminate()` would then do nothing, and each
# stop (the mock's, each backend's) would wait out its timeout before killing. Unblock them here, in
# the main thread that starts every child, before anything is started.
if hasattr(signal, "pthread_sigmask"):
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


class ConformanceBackend:
    """backend.py as a subprocess on a port of its own, talking to the mock's unprefixed URLs (a
    run's codes carry its namespace, and the unprefixed JWKS publishes every namespace's keys).

    The port is chosen before the backend starts (not PORT=0): the web flow needs the backend to know
    its own callback, `REDIRECT_URI`, which it sends to the authorize URL and to the token endpoint."""

    def __init__(self, mock_url, bug="", **env):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(prefix="backend-", suffix=".log", delete=False)
        environment = {**os.environ, "MOCK_URL": mock_url, "PORT": str(self.port), "BUG": bug,
                       "REDIRECT_URI": f"{self.url}/auth/apple/callback", "JWKS_MIN_INTERVAL": "0.2", **env}
        self.process = subprocess.Popen([sys.executable, str(HERE / "backend.py")], env=environment,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        if not wait_until(lambda: "backend listening on" in self.text or self.process.poll() is not None, 15) \
                or self.process.poll() is not None:
            raise RuntimeError(f"the backend did not start (exit {self.process.returncode}):\n" + self.text)

    @property
    def text(self):
        return Path(self.log.name).read_text()

    def stop(self):
        stop_process(self.process, self.log)


def run_config(port, **overrides):
    """The run's config for a backend on `port` (the brief's, verbatim, and the web path: the mock,
    as the browser, starts at the backend's start URL, follows it to the authorize URL, posts the
    form_post to the backend's callback and follows its redirects to /welcome; and the notification
    receiver), with `overrides`."""
    base = f"http://127.0.0.1:{port}"
    config = {
        "clientId": "com.example.app", "otherClientIds": ["com.example.web"], "user": "sam",
        "native": {
            "url": f"{base}/api/auth/apple/native",
            "body": '{"identityToken": "{{identityToken}}", "rawNonce": "{{rawNonce}}", '
                    '"userIdentifier": "{{userIdentifier}}", "user": {{user}}}',
        },
        "exchange": {"url": f"{base}/api/auth/apple/code",
                     "body": '{"authorizationCode": "{{authorizationCode}}"}'},
        "web": {"start": f"{base}/login/apple/start",
                "accepted": {"status": "2xx", "finalUrlContains": "/welcome"}},
        "notifications": {"url": f"{base}/api/apple/notifications", "accepted": {"status": "2xx"}},
        "nonce": "sha256-hex", "accepted": {"status": "2xx", "userPointer": "/sub"},
    }
    config.update(overrides)
    return config
