"""Backend conformance runs (`POST /__admin/conformance/runs`) against backend.py: the correct backend
gets no FAIL and no INCONCLUSIVE, and each planted BUG is found by exactly its cases.

One mock for the module (conftest.py); per test, backend.py on a port chosen in advance (its
REDIRECT_URI is its own callback) with JWKS_MIN_INTERVAL=0.2, talking to the mock's unprefixed URLs: a
run works in a namespace of its own (`conformance-<id>`), its codes carry that namespace wherever they
are exchanged, and the unprefixed JWKS publishes every namespace's keys. The default namespace's JWKS
order is made `stable` so that what a BUG=keys-first backend takes as "the first key" is the same on
every run. The run drives four paths: native, exchange, web (the mock as the browser) and
notifications (Apple's server-to-server posts to the backend's receiver).

Run: `python3 -m pytest examples/backend-conformance/test_conformance_run.py -q -s` (prints timings).
"""

import pytest

from conftest import by_verdict, describe, free_port, run_config, run_report

PATHS = ("native", "exchange", "web")
NATIVE_WEB = ("native", "web")
NOTIFICATIONS = ("notifications",)


def on(paths, *ids):
    return {(path, case) for path in paths for case in ids}


# The (path, case id) pairs a run grades FAIL for each BUG (variants folded), from the bug's semantics
# and confirmed by running. Native-only cases (ok-second-client, sub-not-bound, nonce-absent-unsupported,
# ...) are never sent on the other paths; nonce-wrong and nonce-absent-supported are native and web;
# xch-error is exchange and web; state-bad and chash-bad are web only.
EXPECTED_FAILS = {
    "": set(),
    # aud never read: another app's token passes. aud-missing and aud-extra-member are "should"
    # cases: they show as WARNING, not FAIL.
    "no-aud": on(PATHS + NOTIFICATIONS, "aud-other-client"),
    # HS256 keyed with the SPKI PEM (only that variant: pkcs1-pem and der do not match the bug's key
    # text), and PS256/RS512 verified with Apple's key; `none` is still refused.
    "alg-from-header": on(PATHS, "alg-hs256-pubkey", "alg-other-asym"),
    # The signature never checked: every signing defect passes. On the exchange path a bad signature
    # is a "should" (the code came over TLS), graded WARNING; on the web path the defect is in the
    # form-posted id_token too (the front channel), so sig-bad is a FAIL there. kid-absent-multi is a
    # WARNING everywhere. A forged notification gets through the same way: a stranger could end
    # any user's sessions.
    "no-verify": on(PATHS, "sig-missing", "alg-none", "alg-hs256-pubkey", "alg-other-asym", "key-untrusted-same-kid",
                    "key-header-injection", "kid-unknown") | on(NATIVE_WEB, "sig-bad")
    | on(NOTIFICATIONS, "sig-bad", "alg-none", "kid-unknown"),
    # keys[0] whatever the kid: valid tokens signed by another published key (or a rotated one) are
    # refused.
    "keys-first": on(PATHS, "ok-kid-not-first", "ok-rotated-key"),
    # The nonce never compared (native and web). nonce-scheme-confusion is a policy: WARNING.
    "no-nonce": on(NATIVE_WEB, "nonce-wrong", "nonce-absent-supported"),
    # The callback finds the sign-in by the posted state, not the browser's cookie: a forged state
    # still finds nothing (refused), but another browser's code and state posted in the victim's
    # browser sign in (state-bad[other-browser]: login CSRF).
    "no-state": {("web", "state-bad")},
    # A string email_verified refuses the login: Apple's "true" strings lock users out.
    "strict-bools": on(PATHS, "ok-claims-as-strings"),
    # The JWKS fetched once: a key rotated in during the run is never known.
    "keys-cached-forever": on(PATHS, "ok-rotated-key"),
}

# What the correct backend is graded other than PASS and SKIPPED: it signs in with the string
# "false" as emailVerified: false, which the run cannot tell from trusting it (a "should": WARNING),
# and it accepts a token without a nonce when the app posted none (older devices: INFO).
CORRECT_NOTES = {("native", "bool-string-false", "WARNING"), ("exchange", "bool-string-false", "WARNING"),
                 ("web", "bool-string-false", "WARNING"), ("native", "nonce-absent-unsupported", "INFO")}


@pytest.fixture(scope="module", autouse=True)
def stable_jwks(conformance_mock):
    conformance_mock.admin("PATCH", "/__admin/settings", {"jwksOrder": "stable"})


def test_correct_backend_is_clean(conformance_mock, conformance_backend):
    backend = conformance_backend()
    report, elapsed = run_report(conformance_mock, run_config(backend.port))
    print(f"\nfull conformance run against the correct backend: {elapsed:.1f} s, {len(report['cases'])} results, "
          f"summary {report['summary']}")
    assert not report.get("error"), describe(report)
    assert by_verdict(report, "FAIL") == set(), describe(report)
    assert by_verdict(report, "INCONCLUSIVE") == set(), describe(report)
    notes = {(c["path"], c["id"], c["verdict"]) for c in report["cases"] if c["verdict"] in ("WARNING", "INFO")}
    assert notes == CORRECT_NOTES, describe(report)
    # Skipped only where a case cannot arrive on the path.
    for case in report["cases"]:
        if case["verdict"] == "SKIPPED":
            assert case["note"].startswith("cannot arrive on the"), case
    ids = {(c["path"], c["id"]) for c in report["cases"] if c["verdict"] == "PASS"}
    assert on(PATHS, "ok-baseline", "ok-rotated-key", "ok-kid-not-first") <= ids, describe(report)
    # Every notification the receiver gets: the valid one accepted, each forgery refused.
    assert {c["id"] for c in report["cases"] if c["path"] == "notifications" and c["verdict"] == "PASS"} == {
        "ok-baseline", "sig-bad", "alg-none", "kid-unknown", "iss-wrong", "aud-other-client", "exp-past",
        "events-object"}, describe(report)
    # The web-only and web-and-exchange cases were sent on the web path and refused, both state-bad
    # variants included.
    assert on(["web"], "state-bad", "chash-bad", "xch-error", "nonce-wrong", "nonce-absent-supported") <= ids
    assert {c["variant"] for c in report["cases"] if c["path"] == "web" and c["id"] == "state-bad"
            and c["verdict"] == "PASS"} == {"forged", "other-browser"}, describe(report)


@pytest.mark.parametrize("bug", sorted(b for b in EXPECTED_FAILS if b))
def test_each_bug_is_found_by_exactly_its_cases(conformance_mock, conformance_backend, bug):
    backend = conformance_backend(bug)
    report, elapsed = run_report(conformance_mock, run_config(backend.port))
    print(f"\nBUG={bug}: {elapsed:.1f} s, FAIL {sorted(by_verdict(report, 'FAIL'))}")
    assert not report.get("error"), describe(report)
    assert by_verdict(report, "FAIL") == EXPECTED_FAILS[bug], describe(report)
    assert by_verdict(report, "INCONCLUSIVE") == set(), describe(report)
    if bug == "no-state":  # a forged state finds no sign-in: only another browser's gets through
        assert {c["variant"] for c in report["cases"] if c["verdict"] == "FAIL"} == {"other-browser"}, \
            describe(report)


def test_known_findings_are_accepted_risks(conformance_mock, conformance_backend):
    backend = conformance_backend("no-aud")
    report, _ = run_report(conformance_mock, run_config(backend.port, knownFindings=["aud-other-client"]))
    assert by_verdict(report, "FAIL") == set(), describe(report)
    assert by_verdict(report, "ACCEPTED_RISK") == EXPECTED_FAILS["no-aud"], describe(report)
    assert report["summary"]["ACCEPTED_RISK"] == 4 and report["summary"]["FAIL"] == 0


def test_a_closed_port_is_inconclusive(conformance_mock):
    port = free_port()  # nothing listens there
    report, elapsed = run_report(conformance_mock, run_config(port), seconds=60)
    assert elapsed < 30, elapsed
    # Not sent: INCONCLUSIVE; a case that cannot arrive on a path is SKIPPED there all the same.
    assert report["cases"] and {c["verdict"] for c in report["cases"]} == {"INCONCLUSIVE", "SKIPPED"}, describe(report)
    for case in report["cases"]:
        if case["verdict"] == "SKIPPED":
            assert case["note"].startswith("cannot arrive on the"), case
    sent = [c for c in report["cases"] if c.get("response")]
    # The calibration of each path is sent and gets no answer; every other case is not sent.
    assert {(c["path"], c["id"]) for c in sent} == on(PATHS + NOTIFICATIONS, "ok-baseline"), describe(report)
    for case in sent:
        assert case["response"].get("status") is None, case
        assert "refused" in case["response"]["error"].lower(), case
        assert case["observed"] == "none" and case["note"].startswith("no answer from the backend"), case
    for case in report["cases"]:
        if not case.get("response") and case["verdict"] == "INCONCLUSIVE":
            assert case["note"].startswith("not sent"), case


@pytest.mark.parametrize("overrides, field", [
    ({"knownFindings": ["no-such-case"]}, "$.knownFindings[0]"),
    ({"native": {"url": "http://127.0.0.1:9/api/auth/apple/native", "body": '{"rawNonce": "{{rawNonce}}"}'}},
     "$.native.body"),
    ({"clientId": "com.nobody.app"}, "$.clientId"),
    ({"notifications": {"url": "http://127.0.0.1:9/n", "appGroupId": "nobody"}}, "$.notifications.appGroupId"),
    ({"notifications": {"url": "http://127.0.0.1:9/n", "type": "consent-given"}}, "$.notifications.type"),
    ({"notifications": {"appGroupId": "example"}}, "$.notifications.url"),
    ({"notifications": {"url": "ftp://127.0.0.1/n"}}, "$.notifications.url"),
])
def test_bad_configs_are_refused_naming_the_field(conformance_mock, overrides, field):
    answer = conformance_mock.call("POST", "/__admin/conformance/runs", run_config(free_port(), **overrides))
    assert answer.status == 400, answer
    assert answer.json["error"] == "invalid_request", answer
    assert [p["path"] for p in answer.json["problems"]] == [field], answer
    assert field in answer.json["message"], answer
