"""The one test harness of the Python suites (Tests/mail, Tests/browser): see harness.py."""

from .harness import (  # noqa: F401
    BINARY, ROOT, Answer, MockServer, Sink, deadline, free_port, patience, patient, remaining, server_environment,
    stop_process, wait_until,
)
