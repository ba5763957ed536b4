"""What every Python suite needs to drive a real `apple-id-mock serve`.

- `MockServer`: the executable named by APPLE_ID_MOCK_BINARY (else the debug build) on a free port
  of 127.0.0.1, with an environment stripped of APPLE_ID_MOCK_* (an exported admin token or state
  URL would change what the tests see); `smtp_port` when it runs the relay. `call` is any HTTP call
  (an `Answer`), `admin` a control-plane call that must succeed (its JSON), `wait_for` a waiting
  read of the control plane (`minCount`, `waitSeconds`).
- `Sink`: an aiosmtpd server that keeps every message it receives (the team's own mail server).
- `free_port()`, and waits scaled by APPLE_ID_MOCK_TEST_PATIENCE, read as the Swift suites read it
  (`Waiting.patience` in Tests/AppleIDMockTests/ServerProcess.swift): a wait ends as soon as its
  event comes, the patience only bounds a wait for an event that never comes, so a loaded machine
  does not fail a test that would pass. `wait_until` polls a condition until a deadline; `patient`
  is the timeout of one blocking call (a socket read, a subprocess, an `Event.wait`).
"""

import json
import math
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

DEFAULT_PATIENCE = 4.0
# The longest timeout handed to a blocking call (about 31 years): what an infinite patience
# (`inf`, which Swift takes too) comes to, as sockets and threads refuse longer ones.
FOREVER = 1e9

# What Swift's `Double(_: String)` accepts: the whole text, no whitespace, ASCII digits only, no
# underscores; decimal or hexadecimal (`0x1p3`), `inf`/`infinity`, `nan`/`snan` with a payload.
_SWIFT_DOUBLE = re.compile(r"""
    (?P<sign>[+-]?)
    (?: (?P<hex>0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?)
      | (?P<decimal>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)
      | (?P<infinity>inf(?:inity)?)
      | (?P<nan>s?nan(?:\([^)]*\))?)
    )""", re.VERBOSE | re.IGNORECASE | re.ASCII)


def _swift_double(text):
    """`Double(text)` as Swift computes it, or None where Swift's is nil."""
    match = _SWIFT_DOUBLE.fullmatch(text)
    if not match:
        return None
    negative = match["sign"] == "-"
    if match["nan"]:
        return math.nan
    if match["infinity"]:
        return -math.inf if negative else math.inf
    if match["hex"]:
        try:
            value = float.fromhex(match["hex"])
        except OverflowError:
            value = math.inf
    else:
        value = float(match["decimal"])
    return -value if negative else value


def patience():
    """APPLE_ID_MOCK_TEST_PATIENCE: how many times its nominal seconds a wait may last. Read as the
    Swift suites read it (`Double(text).flatMap { $0 >= 1 ? $0 : nil } ?? 4`): a number Swift's
    `Double` parses (no spaces, no underscores; hexadecimal and `inf` allowed) and at least 1, else 4
    (unset, empty, not a number, below 1, NaN)."""
    value = _swift_double(os.environ.get("APPLE_ID_MOCK_TEST_PATIENCE", ""))
    return value if value is not None and value >= 1 else DEFAULT_PATIENCE


def patient(seconds):
    """The timeout of one blocking call that waits for an event due within `seconds` nominal
    seconds: `seconds` times the patience."""
    return min(seconds * patience(), FOREVER) if seconds > 0 else 0.0


def deadline(seconds):
    """The time.monotonic() by which a wait of `seconds` nominal seconds gives up."""
    return time.monotonic() + patient(seconds)


def remaining(end):
    """Seconds left until the deadline `end` (0 once it passed)."""
    return max(0.0, end - time.monotonic())


def wait_until(condition, seconds, interval=0.02):
    """Polls `condition()` until it returns something truthy (returned at once) or the deadline of
    `seconds` nominal seconds passes (its last, falsy, result is returned)."""
    end = deadline(seconds)
    while True:
        result = condition()
        if result or time.monotonic() >= end:
            return result
        time.sleep(interval)


def stop_process(process, log):
    """Stops a child started with its output in the file `log`: SIGTERM, then SIGKILL after the
    patience-scaled 10 s; the log closed and deleted."""
    process.terminate()
    try:
        process.wait(timeout=patient(10))
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if not log.closed:
        log.close()
        os.unlink(log.name)


def free_port():
    """A port nothing listens on now (bound once, then released; aiosmtpd checks its own start by
    connecting to it)."""
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
    """An HTTP answer: `status`, `headers` (read by any case of their names), `text` (the body) and
    `json` (the body parsed, None when it is not JSON)."""

    def __init__(self, status, headers, body):
        self.status, self.headers, self.text = status, headers, body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    def __repr__(self):
        return f"Answer({self.status}, {self.text[:500]!r})"


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

        def started():
            text = Path(self.log.name).read_text()
            http = re.search(r"listening on (https?)://127\.0\.0\.1:(\d+)", text)
            smtp = re.search(r"SMTP relay on smtp://127\.0\.0\.1:(\d+)", text)
            if http and (smtp or not wants_smtp):
                return http, smtp
            return "exited" if self.process.poll() is not None else None

        found = wait_until(started, start_seconds, interval=0.05)
        if not found or found == "exited":
            text = self.log_text
            self.stop()
            raise RuntimeError("the server did not start:\n" + text)
        http, smtp = found
        self.port = int(http.group(2))
        self.url = f"{http.group(1)}://127.0.0.1:{self.port}"
        self.smtp_port = int(smtp.group(1)) if smtp else None

    @property
    def log_text(self):
        """What the server wrote so far."""
        try:
            return Path(self.log.name).read_text()
        except OSError:
            return ""

    def call(self, method, path, body=None, *, token=True, form=None, headers=None, timeout=15):
        """Calls the server (JSON bodies for the control plane, forms for Apple's endpoints) with
        the admin token, if any, unless `token=False`; an `Answer`, whatever its status. `timeout`
        is in nominal seconds."""
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
            with urllib.request.urlopen(request, timeout=patient(timeout)) as response:
                return Answer(response.status, response.headers, response.read().decode("utf-8", "replace"))
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.headers, error.read().decode("utf-8", "replace"))

    def admin(self, method, path, body=None, **options):
        """A call that must succeed (2xx); its JSON."""
        answer = self.call(method, path, body, **options)
        assert 200 <= answer.status < 300, f"{method} {path}: {answer.status} {answer.text}"
        return answer.json

    def wait_for(self, path, count=1, seconds=10, **filters):
        """A waiting read of the control plane (`GET /__admin/journal`, `…/notifications`,
        `…/mail`, with `filters`): the server answers as soon as `count` entries pass the filters
        (`minCount`; it wakes on the change, nothing polls), or when its `waitSeconds` (at most 60)
        are up, when it is asked again until the deadline of `seconds` nominal seconds. The JSON of
        the answer that reached the count; an AssertionError naming what was found if none did."""
        end = deadline(seconds)
        while True:
            wait = min(60.0, remaining(end))
            query = urllib.parse.urlencode({**filters, "minCount": count, "waitSeconds": f"{wait:.3f}"})
            listing = self.admin("GET", f"{path}?{query}", timeout=wait + 10)
            if listing.get("reached"):
                return listing
            if remaining(end) == 0:
                raise AssertionError(
                    f"GET {path} matched {listing.get('matched')} entries for {filters}, expected {count}")

    def stop(self):
        stop_process(self.process, self.log)


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
