"""Fixtures for the email relay's live tests.

A real `apple-id-mock serve` (APPLE_ID_MOCK_BINARY, else the debug build) with `--smtp-port 0`,
an aiosmtpd sink standing in for the team's own mail server (`--smtp-forward`, `--smtp-outbound`),
and helpers that sign users in with Hide My Email and read the mailbox. The launcher, its `call`
and `admin`, the sink and the waits are the shared harness's (Tests/pyharness).
"""

import smtplib
import socket
import sys
import time
import urllib.parse
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pyharness import BINARY, ROOT, MockServer, Sink, patient, server_environment, wait_until  # noqa: E402,F401

EXAMPLE_TEAM, OTHER_TEAM = "DEF123GHIJ", "XYZ789KLMN"


class Mock(MockServer):
    """One `apple-id-mock serve` process (the shared launcher) with the mailbox's helpers."""

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
        """The mailbox's entries passing `filters` (`user`, `team`, `outcome`, `direction`, `limit`), newest first."""
        query = urllib.parse.urlencode(filters)
        return self.admin("GET", "/__admin/mail" + (f"?{query}" if query else ""))["entries"]

    def wait_mail(self, count, seconds=10, **filters):
        """The entries passing `filters` once there are `count` of them: a waiting read
        (`minCount`, `waitSeconds`) that the server answers as soon as the mailbox has them."""
        return self.wait_for("/__admin/mail", count, seconds, **filters)["entries"]

    def rss_kb(self):
        """The server's resident memory now (VmRSS), in kB."""
        return self._status_kb("VmRSS:")

    def peak_kb(self):
        """The server's peak resident memory so far (VmHWM), in kB."""
        return self._status_kb("VmHWM:")

    def _status_kb(self, field):
        with open(f"/proc/{self.process.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith(field))


def smtp(mock, seconds=15):
    """An smtplib client connected to the relay of `mock` (its replies awaited `seconds` nominal seconds)."""
    return smtplib.SMTP("127.0.0.1", mock.smtp_port, timeout=patient(seconds))


class Raw:
    """A raw SMTP connection: bytes out, reply lines in."""

    def __init__(self, mock, seconds=30, greeting=b"220 "):
        """Connects and reads the greeting (`greeting`, which it must start with, unless None);
        each reply is awaited `seconds` nominal seconds."""
        self.socket = socket.create_connection(("127.0.0.1", mock.smtp_port), timeout=patient(seconds))
        self.buffer = b""
        self.greeting = self.reply()
        assert greeting is None or self.greeting[0].startswith(greeting), self.greeting

    def send(self, data):
        self.socket.sendall(data)

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.socket.recv(65536)
            if not chunk:
                raise ConnectionError("closed: " + self.buffer.decode(errors="replace"))
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.rstrip(b"\r")

    def reply(self):
        lines = [self.line()]
        while lines[-1][3:4] == b"-":
            lines.append(self.line())
        return lines

    def command(self, line):
        """Sends one command line (bytes or text, CRLF added) and returns its reply's lines."""
        self.send((line if isinstance(line, bytes) else line.encode()) + b"\r\n")
        return self.reply()

    def close(self):
        self.socket.close()


def marker():
    """A subject no other test sends (forwards of an earlier test may still reach the shared sink)."""
    return f"t-{uuid.uuid4().hex}"


def wait_forwarded(sink, mark, count=1, seconds=10):
    """The forwarded messages with `mark`, once there are `count` of them."""
    wait_until(lambda: len(forwarded(sink, mark)) >= count, seconds)
    found = forwarded(sink, mark)
    assert len(found) >= count, f"the sink got {len(found)} messages marked {mark}, expected {count}"
    return found


def forwarded(sink, mark):
    return [message for message in sink.messages if mark.encode() in message.content]


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


def message(sender="news@example.com", to="", subject="Welcome", body="Hello from the app.\r\n", extra=""):
    """A small RFC 5322 message."""
    return (f"From: Example News <{sender}>\r\nTo: <{to}>\r\nSubject: {subject}\r\n"
            f"Message-ID: <{time.time_ns()}@example.com>\r\n{extra}\r\n{body}").encode()
