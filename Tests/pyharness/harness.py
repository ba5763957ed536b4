"""What every Python suite needs to drive a real `apple-id-mock serve`.

- `MockServer`: the executable named by APPLE_ID_MOCK_BINARY (else the debug build) on a free port
  of 127.0.0.1, with an environment stripped of APPLE_ID_MOCK_* (an exported admin token or state
  URL would change what the tests see); `smtp_port` when it runs the relay.
- `Sink`: an aiosmtpd server that keeps every message it receives (the team's own mail server).
- `free_port()`, and deadlines scaled by APPLE_ID_MOCK_TEST_PATIENCE (default 4), as the Swift
  suites' are: a wait ends as soon as its event comes, the patience only bounds a wait for an event
  that never comes, so a loaded machine does not fail a test that would pass.
"""

import json
import os
import re
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("APPLE_ID_MOCK_BINARY") or str(ROOT / ".build/debug/apple-id-mock")


def patience():
    """APPLE_ID_MOCK_TEST_PATIENCE: how many times its nominal seconds a wait may last (default 4)."""
    try:
        value = float(os.environ.get("APPLE_ID_MOCK_TEST_PATIENCE", "") or 4)
    except ValueError:
        value = 4
    return value if value > 0 else 4


def deadline(seconds):
    """The time.time() by which a wait of `seconds` nominal seconds gives up."""
    return time.time() + seconds * patience()


def wait_until(condition, seconds, interval=0.02):
    """Polls `condition()` until it returns something truthy (returned) or the deadline passes (None)."""
    end = deadline(seconds)
    while True:
        result = condition()
        if result or time.time() >= end:
            return result
        time.sleep(interval)


def free_port():
    """A port nothing listens on now (aiosmtpd checks its own start by connecting to it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_environment(extra=None):
    """This process's environment without APPLE_ID_MOCK_* (the test's own settings stay out of the
    server), plus `extra`."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("APPLE_ID_MOCK_")}
    environment.update(extra or {})
    return environment


class Answer:
    """An HTTP answer: status, headers and body (parsed when JSON)."""

    def __init__(self, status, headers, body):
        self.status, self.headers, self.text = status, headers, body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None


class MockServer:
    """One `apple-id-mock serve` process on a free port of 127.0.0.1 (`--port 0`), with `arguments`
    added and `env` added to the stripped environment. With `--smtp-port` among the arguments (or in
    `env`), it waits for the relay's port too."""

    def __init__(self, *arguments, env=None, start_seconds=30):
        if not os.path.exists(BINARY):
            raise RuntimeError(f"no apple-id-mock executable at {BINARY}: run swift build")
        self.binary = BINARY
        self.arguments = arguments
        self.log = tempfile.NamedTemporaryFile(prefix="apple-id-mock-", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", *arguments], cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
            env=server_environment(env))
        self.admin_token = None
        if "--admin-token" in arguments:
            self.admin_token = arguments[list(arguments).index("--admin-token") + 1]
        wants_smtp = "--smtp-port" in arguments or "APPLE_ID_MOCK_SMTP_PORT" in (env or {})
        self.smtp_port = None
        end = deadline(start_seconds)
        while time.time() < end:
            text = Path(self.log.name).read_text()
            match = re.search(r"listening on (https?)://127\.0\.0\.1:(\d+)", text)
            smtp = re.search(r"SMTP relay on smtp://127\.0\.0\.1:(\d+)", text)
            if match and (smtp or not wants_smtp):
                self.port = int(match.group(2))
                self.url = f"{match.group(1)}://127.0.0.1:{self.port}"
                self.smtp_port = int(smtp.group(1)) if smtp else None
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("the server did not start:\n" + Path(self.log.name).read_text())

    def request(self, method, path, body=None, *, token=True, form=None, headers=None, timeout=15):
        """Calls the server (JSON bodies for the control plane, forms for Apple's endpoints); an `Answer`."""
        request_headers = dict(headers or {})
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            request_headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = (body if isinstance(body, str) else json.dumps(body)).encode()
            request_headers["Content-Type"] = "application/json"
        if token and self.admin_token:
            request_headers["Authorization"] = f"Bearer {self.admin_token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=request_headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout * patience()) as response:
                return Answer(response.status, dict(response.headers), response.read().decode("utf-8", "replace"))
        except urllib.error.HTTPError as error:
            return Answer(error.code, dict(error.headers), error.read().decode("utf-8", "replace"))

    def call(self, method, path, body=None, **options):
        """`request`, as the suites call it: an `Answer`."""
        return self.request(method, path, body, **options)

    def admin(self, method, path, body=None):
        """A control-plane call that must succeed; its JSON."""
        answer = self.request(method, path, body)
        assert 200 <= answer.status < 300, f"{method} {path}: {answer.status} {answer.text}"
        return answer.json

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10 * patience())
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        os.unlink(self.log.name)


class Sink:
    """An SMTP server (aiosmtpd) that keeps every message it receives."""

    def __init__(self):
        from aiosmtpd.controller import Controller

        self.messages = []
        sink = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                sink.messages.append(envelope)
                return "250 Message accepted for delivery"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=free_port())
        self.controller.start()
        self.port = self.controller.port

    def wait(self, count, seconds=10):
        """The messages once there are `count` of them (polled, with a deadline)."""
        wait_until(lambda: len(self.messages) >= count, seconds)
        assert len(self.messages) >= count, f"the sink got {len(self.messages)} messages, expected {count}"
        return self.messages

    def stop(self):
        self.controller.stop()
