"""Backend conformance runs (`POST /__admin/conformance/runs`) against backend.py: the correct backend
gets no FAIL and no INCONCLUSIVE, and each planted BUG is found by exactly its cases.

One mock for the module (conftest.py); per test, backend.py on a port chosen in advance (its
REDIRECT_URI is its own callback) with JWKS_MIN_INTERVAL=0.2, talking to the mock's unprefixed URLs: a
run works in a namespace of its own (`conformance-<id>`), its codes carry that namespace wherever they
are exchanged, and the unprefixed JWKS publishes every namespace's keys, shuffled per answer as
Apple's (a BUG=keys-first backend's "first key" is whichever its fetch put first: the run's
calibration finds it). The run drives four paths: native, exchange, web (the mock as the browser) and
notifications (Apple's server-to-server posts to the backend's receiver).

Run: `python3 -m pytest examples/backend-conformance/test_conformance_run.py -q -s` (prints timings).
"""

import base64
import json

import pytest

from conftest import ConformanceBackend, MockServer, by_verdict, describe, free_port, run_config, run_report

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
    # The key the token's header names: the attacker's, in each of jwk, jku, x5u and x5c.
    "trust-header-keys": on(PATHS, "key-header-injection"),
    # Not a mistake: the app's userIdentifier ignored, the token's user signed in (userPointer reads it).
    "user-id-ignored": set(),
}

# What the correct backend is graded other than PASS and SKIPPED: it signs in with the string
# "false" as emailVerified: false, which the run cannot tell from trusting it (a "should": WARNING),
# and it accepts a token without a nonce when the app posted none (older devices: INFO).
CORRECT_NOTES = {("native", "bool-string-false", "WARNING"), ("exchange", "bool-string-false", "WARNING"),
                 ("web", "bool-string-false", "WARNING"), ("native", "nonce-absent-unsupported", "INFO")}


def variants(report, verdict, case_id):
    return {c.get("variant") for c in report["cases"] if c["verdict"] == verdict and c["id"] == case_id}


def attacker_fetches(case):
    """The attacker's routes the backend fetched during `case`, as its journal shows them."""
    return [j["endpoint"] for j in case["journal"] if j["endpoint"].startswith("/__attacker/")]


def token_header(case):
    """The header of the identity token a native case posted."""
    token = json.loads(case["request"]["body"])["identityToken"]
    head = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))


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
    # Each path's calibration: the valid credential accepted, one that is not a JWS refused.
    assert [(c["path"], c["valid"], c["invalid"], c["usable"]) for c in report["calibration"]] == [
        (path, "accepted", "rejected", True) for path in PATHS + NOTIFICATIONS], report["calibration"]
    # The backend's JWKS fetch after an unknown kid shows in the case's journal: the default
    # namespace answers the unprefixed /auth/keys, and says so.
    for case in report["cases"]:
        if case["id"] in ("kid-unknown", "ok-rotated-key") and case["path"] in PATHS:
            fetches = [j for j in case["journal"] if j["endpoint"] == "keys"]
            assert fetches and fetches[0]["namespace"] == "default" and "another client" in fetches[0]["note"], case
    # A backend that never follows jku or x5u never fetches the attacker's routes.
    assert not [(c["path"], c["id"], c.get("variant")) for c in report["cases"]
                if attacker_fetches(c)], describe(report)


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
    if bug == "trust-header-keys":
        assert variants(report, "FAIL", "key-header-injection") == {"jwk", "jku", "x5u", "x5c"}, describe(report)
        # The fetch of the attacker's key list (jku) or certificate (x5u) shows in that variant's
        # journal, and in no other case's (on the web path twice: the callback's id_token and the
        # token response's).
        fetched = {(c["path"], c.get("variant")): set(attacker_fetches(c))
                   for c in report["cases"] if attacker_fetches(c)}
        assert fetched == {
            **{(path, "jku"): {"/__attacker/jwks"} for path in PATHS},
            **{(path, "x5u"): {"/__attacker/certificate.pem"} for path in PATHS},
        }, fetched
        jku = next(c for c in report["cases"] if c.get("variant") == "jku")
        note = next(j for j in jku["journal"] if j["endpoint"] == "/__attacker/jwks")["note"]
        assert "attacker's key list" in note and "(from " in note, note
    if bug == "keys-cached-forever":  # never a fetch after the first: none in the rotated key's case
        for case in report["cases"]:
            if case["id"] == "ok-rotated-key" and case["path"] in PATHS:
                assert not [j for j in case["journal"] if j["endpoint"] == "keys"], case


@pytest.mark.parametrize("order", ["stable", "shuffled"])
def test_keys_first_is_found_whatever_the_jwks_order(conformance_mock, conformance_backend, order):
    """Whichever key the backend's fetch put first, ok-kid-not-first and ok-rotated-key name the bug;
    when it is not the run's signing key, the calibration signs with the one the backend takes."""
    conformance_mock.admin("PATCH", "/__admin/settings", {"jwksOrder": order})
    try:
        backend = conformance_backend("keys-first")
        report, _ = run_report(conformance_mock, run_config(backend.port))
    finally:
        conformance_mock.admin("PATCH", "/__admin/settings", {"jwksOrder": "shuffled"})
    assert by_verdict(report, "FAIL") == EXPECTED_FAILS["keys-first"], describe(report)
    assert by_verdict(report, "INCONCLUSIVE") == set(), describe(report)
    kids = {c["signingKid"] for c in report["calibration"]}
    assert len(kids) == 1, report["calibration"]
    baseline = next(c for c in report["cases"] if c["id"] == "ok-baseline")
    if "refused when signed by" in baseline["note"]:
        assert kids.pop() in baseline["note"], baseline
    # The kid the backend takes is never sent as ok-kid-not-first; every other one fails.
    assert kids.isdisjoint(variants(report, "FAIL", "ok-kid-not-first")), describe(report)


def test_header_keys_are_served_past_an_admin_token(conformance_backend):
    """jku and x5u point outside the control plane: on a mock with an admin token a backend that
    follows them still gets the attacker's key (and the run names the hole); mockUrl sets where."""
    mock = MockServer("--scenarios-dir", "scenarios", "--keys-dir", "keys", "--admin-token", "conformance-token")
    backend = None
    try:
        backend = ConformanceBackend(mock.url, "trust-header-keys")
        mock_url = mock.url.replace("127.0.0.1", "localhost")
        config = run_config(backend.port, cases=["key-header-injection"], mockUrl=mock_url)
        config = {k: v for k, v in config.items() if k not in ("exchange", "web", "notifications")}
        report, _ = run_report(mock, config)
        assert variants(report, "FAIL", "key-header-injection") == {"jwk", "jku", "x5u", "x5c"}, describe(report)
        headers = {c["variant"]: token_header(c) for c in report["cases"] if c["id"] == "key-header-injection"}
        assert headers["jku"]["jku"] == f"{mock_url}/__attacker/jwks"
        assert headers["x5u"]["x5u"] == f"{mock_url}/__attacker/certificate.pem"
        assert len(headers["x5c"]["x5c"]) == 1
    finally:
        if backend:
            backend.stop()
        mock.stop()


def test_a_rule_that_reads_errors_as_sign_ins_is_inconclusive(conformance_mock, conformance_backend):
    """A backend that answers 200 {"error": ...} to every refusal: under a bare 2xx the calibration
    finds that a credential that is not a JWS reads as accepted, and no case is judged (no false
    FAIL); with userPointer the same backend is judged, and clean."""
    backend = conformance_backend("errors-as-200")
    report, _ = run_report(conformance_mock, run_config(backend.port, accepted={"status": "2xx"}))
    assert not report.get("error") and by_verdict(report, "FAIL") == set(), describe(report)
    calibration = {c["path"]: c for c in report["calibration"]}
    for path in ("native", "exchange", "notifications"):
        assert calibration[path]["invalid"] == "accepted" and not calibration[path]["usable"], calibration[path]
        assert "bodyContains" in calibration[path]["note"] and "userPointer" in calibration[path]["note"]
        assert calibration[path]["response"]["status"] == 200
        verdicts = {c["verdict"] for c in report["cases"] if c["path"] == path}
        assert verdicts <= {"INCONCLUSIVE", "SKIPPED"} and "INCONCLUSIVE" in verdicts, describe(report)
    # The web path reads acceptance from the final URL: a refusal's 200 page is not /welcome.
    assert calibration["web"]["usable"] and calibration["web"]["invalid"] == "rejected"
    assert not {c for c in by_verdict(report, "INCONCLUSIVE") if c[0] == "web"}, describe(report)

    report, _ = run_report(conformance_mock, run_config(backend.port))  # accepted: userPointer /sub
    assert by_verdict(report, "FAIL") == set(), describe(report)
    assert {path for path, _ in by_verdict(report, "INCONCLUSIVE")} == {"notifications"}, describe(report)


def test_sub_not_bound_needs_a_user_pointer(conformance_mock, conformance_backend):
    """A backend that signs in the token's user whatever the body's userIdentifier says is right:
    with userPointer it passes; without one the run cannot tell whom it signed in (SKIPPED, not
    FAIL); a backend that refuses passes either way."""
    native_only = {"exchange": None, "web": None, "notifications": None}

    def run(bug, accepted):
        config = run_config(conformance_backend(bug).port, cases=["sub-not-bound"], accepted=accepted)
        config = {k: v for k, v in config.items() if k not in native_only}
        report, _ = run_report(conformance_mock, config)
        return next(c for c in report["cases"] if c["id"] == "sub-not-bound")

    with_pointer = run("user-id-ignored", {"status": "2xx", "userPointer": "/sub"})
    assert with_pointer["verdict"] == "PASS" and "token's user" in with_pointer["note"], with_pointer
    without = run("user-id-ignored", {"status": "2xx", "cookie": "session"})
    assert without["verdict"] == "SKIPPED" and "userPointer" in without["note"], without
    refused = run("", {"status": "2xx", "cookie": "session"})
    assert refused["verdict"] == "PASS" and refused["observed"] == "rejected", refused


def test_second_client_is_sent_for_each_other_client_id(conformance_mock, conformance_backend):
    backend = conformance_backend(CLIENT_IDS="com.example.app,com.otherstudio.app,com.example.web")
    config = run_config(backend.port, cases=["ok-second-client"], otherClientIds=["com.example.web", "com.otherstudio.app"])
    config = {k: v for k, v in config.items() if k not in ("exchange", "web", "notifications")}
    report, _ = run_report(conformance_mock, config)
    assert variants(report, "PASS", "ok-second-client") == {"com.example.web", "com.otherstudio.app"}, describe(report)


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
