"""A running apple-id-mock without a container, for the tests of what needs only its HTTP API: the
server at ``APPLE_ID_MOCK_URL`` when set (CI starts one), else this checkout's debug build
(``swift build``) started on a free port, else none (the tests skip)."""

import os
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator, Optional

REPOSITORY = Path(__file__).resolve().parents[3]
BINARY = REPOSITORY / ".build" / "debug" / "apple-id-mock"


def local_server() -> Iterator[Optional[str]]:
    """Yields the base URL of a running server (``None`` when there is none to use); a server it
    started is stopped when the generator is closed."""
    url = os.environ.get("APPLE_ID_MOCK_URL")
    if url:
        yield url.rstrip("/")
        return
    if not BINARY.exists():
        yield None
        return
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [str(BINARY), "serve", "--port", "0", "--log-level", "warning"], cwd=REPOSITORY, stdout=log,
            stderr=subprocess.STDOUT)
        try:
            yield _wait_for_port(process, log)
        finally:
            process.terminate()
            process.wait(timeout=10)


def _wait_for_port(process: subprocess.Popen, log) -> str:
    deadline = time.monotonic() + 30
    text = ""
    while time.monotonic() < deadline:
        log.seek(0)
        text = log.read().decode(errors="replace")
        found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", text)
        if found:
            return found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"{BINARY} did not start: {text[-2000:]}")
