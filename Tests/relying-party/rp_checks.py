"""What the Python relying parties share: the bundled scenario's web client and team, Apple's
issuer and revoked-token error, and the one-line checks with their tally."""

import os
import sys
from pathlib import Path

APPLE_ISSUER = "https://appleid.apple.com"
CLIENT_ID = "com.example.web"
TEAM_ID = "DEF123GHIJ"
KEY_ID = "ABC123DEFG"
REDIRECT_URI = "http://localhost:3000/auth/apple/callback"
# The repository's keys/, or APPLE_ID_MOCK_KEYS_DIR (a container mounts them elsewhere).
KEYS_DIR = Path(os.environ.get("APPLE_ID_MOCK_KEYS_DIR") or Path(__file__).resolve().parent.parent.parent / "keys")
REVOKED = {"error": "invalid_grant", "error_description": "The token has expired or has been revoked."}

results = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    """Record one check and print `PASS name` or `FAIL name: detail`."""
    results["passed" if ok else "failed"] += 1
    print(f"{'PASS' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"), flush=True)
    return ok


def finish():
    """Print `N passed, M failed` and exit 1 when anything failed."""
    print(f"{results['passed']} passed, {results['failed']} failed", flush=True)
    sys.exit(1 if results["failed"] else 0)
