"""Fixtures for the email relay's live tests.

A real `apple-id-mock serve` (APPLE_ID_MOCK_BINARY, else the debug build) with `--smtp-port 0`,
an aiosmtpd sink standing in for the team's own mail server (`--smtp-forward`, `--smtp-outbound`),
and helpers that sign users in with Hide My Email and read the mailbox.
"""

import json
import os
import re
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("APPLE_ID_MOCK_BINARY") or str(ROOT / ".build/debug/apple-id-mock")
EXAMPLE_TEAM, OTHER_TEAM = "DEF123GHIJ", "XYZ789KLMN"


def free_port():
    """A port nothing listens on now (aiosmtpd checks its own start by connecting to it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Sink:
    """An SMTP server (aiosmtpd) that keeps every message it receives."""

    def __init__(self):
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
        deadline = time.time() + seconds
        while time.time() < deadline and len(self.messages) < count:
            time.sleep(0.02)
        assert len(self.messages) >= count, f"the sink got {len(self.messages)} messages, expected {count}"
        return self.messages

    def stop(self):
        self.controller.stop()


class Mock:
    """One `apple-id-mock serve` process with the SMTP relay on a free port."""

    def __init__(self, *arguments, env=None):
        if not os.path.exists(BINARY):
            raise RuntimeError(f"no apple-id-mock executable at {BINARY}: run swift build")
        self.log = tempfile.NamedTemporaryFile(prefix="apple-id-mock-mail-", suffix=".log", delete=False)
        environment = {k: v for k, v in os.environ.items() if not k.startswith("APPLE_ID_MOCK_")}
        environment.update(env or {})
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", *arguments], cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
            env=environment)
        deadline = time.time() + 30
        while time.time() < deadline:
            text = Path(self.log.name).read_text()
            match = re.search(r"listening on https?://127\.0\.0\.1:(\d+) .*SMTP relay on smtp://127\.0\.0\.1:(\d+)", text)
            if match:
                self.port, self.smtp_port = int(match.group(1)), int(match.group(2))
                self.url = f"http://127.0.0.1:{self.port}"
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("the server did not start with SMTP:\n" + Path(self.log.name).read_text())

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if body is not None else {}
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                text = response.read().decode("utf-8", "replace")
                return response.status, (json.loads(text) if "json" in response.headers.get("Content-Type", "") else text)
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read().decode() or "null")

    def admin(self, method, path, body=None):
        status, answer = self.call(method, path, body)
        assert 200 <= status < 300, f"{method} {path}: {status} {answer}"
        return answer

    def hide_my_email(self, user="sam", client="com.example.app"):
        """Signs `user` in natively with Hide My Email and returns the relay address their app sees."""
        self.admin("POST", "/__admin/native/authorize",
                   {"clientId": client, "user": user, "scopes": ["name", "email"], "hideEmail": True})
        return self.relay_address(user, client)

    def relay_address(self, user, client="com.example.app"):
        group = "example" if client.startswith("com.example") else "other"
        for entry in self.admin("GET", "/__admin/users")["users"]:
            if entry["key"] == user:
                for state in entry["appGroups"]:
                    if state["appGroupId"] == group:
                        return state["relayEmail"]
        raise AssertionError(f"no relay address for {user} in {group}")

    def mail(self, **filters):
        query = "&".join(f"{key}={value}" for key, value in filters.items())
        return self.admin("GET", "/__admin/mail" + (f"?{query}" if query else ""))["entries"]

    def wait_mail(self, count, seconds=10, **filters):
        deadline = time.time() + seconds
        entries = []
        while time.time() < deadline:
            entries = self.mail(**filters)
            if len(entries) >= count:
                return entries
            time.sleep(0.02)
        raise AssertionError(f"the mailbox has {len(entries)} entries for {filters}, expected {count}")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.unlink(self.log.name)


@pytest.fixture(scope="session")
def sink():
    sink = Sink()
    yield sink
    sink.stop()


@pytest.fixture(scope="session")
def server(sink):
    mock = Mock("--smtp-port", "0", "--smtp-forward", f"127.0.0.1:{sink.port}")
    yield mock
    mock.stop()


@pytest.fixture
def mock(server, sink):
    """The server after a reset (empty mailbox, no consents) and an empty sink."""
    server.admin("POST", "/__admin/reset")
    sink.messages.clear()
    return server


def message(sender="news@example.com", to="", subject="Welcome", body="Hello from the app.\n", extra=""):
    """A small RFC 5322 message."""
    return (f"From: Example News <{sender}>\r\nTo: <{to}>\r\nSubject: {subject}\r\n"
            f"Message-ID: <{time.time_ns()}@example.com>\r\n{extra}\r\n{body}").encode()
