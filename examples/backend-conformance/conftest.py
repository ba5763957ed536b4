"""Helpers of test_conformance_run.py: one mock for the module, backend.py per BUG (backend_process.py),
and a conformance run started and awaited through the mock's control plane."""

import json
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "Tests"))
from pyharness import MockServer, free_port, patient  # noqa: E402,F401

# On import, before any fixture starts a process, it unblocks SIGTERM (see there).
from backend_process import ConformanceBackend, run_config  # noqa: E402,F401

RUNS = "/__admin/conformance/runs"


def run_report(mock, config, seconds=240):
    """Starts a run with `config`, waits for its report (`waitSeconds`, asked again until a deadline
    of `seconds` nominal seconds) and returns (report, elapsed seconds)."""
    started = time.monotonic()
    answer = mock.call("POST", RUNS, config)
    assert answer.status == 201, answer
    run_id = answer.json["id"]
    end = time.monotonic() + patient(seconds)
    while True:
        report = mock.admin("GET", f"{RUNS}/{run_id}?waitSeconds=60", timeout=80)
        if report["state"] == "finished" or time.monotonic() > end:
            break
    assert report["state"] == "finished", json.dumps(report["summary"])
    return report, time.monotonic() - started


def by_verdict(report, verdict):
    """The (path, case id) pairs with `verdict` (variants folded)."""
    return {(case["path"], case["id"]) for case in report["cases"] if case["verdict"] == verdict}


def describe(report, verdicts=("FAIL", "INCONCLUSIVE", "WARNING", "INFO", "ACCEPTED_RISK")):
    """The report's non-passing cases, one line each, for an assertion message."""
    lines = [f"summary {report['summary']} error {report.get('error')}"]
    for case in report["cases"]:
        if case["verdict"] in verdicts:
            response = case.get("response") or {}
            lines.append(f"{case['verdict']:13} {case['path']:8} {case['id']}[{case.get('variant') or ''}] "
                         f"{case['observed']}: {case['note']} -> {response.get('status')} "
                         f"{(response.get('body') or response.get('error') or '')[:200]}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def conformance_mock():
    server = MockServer("--scenarios-dir", "scenarios", "--keys-dir", "keys")
    yield server
    server.stop()


@pytest.fixture
def conformance_backend(conformance_mock):
    started = []

    def start(bug="", **env):
        started.append(ConformanceBackend(conformance_mock.url, bug, **env))
        return started[-1]

    yield start
    for backend in started:
        backend.stop()
