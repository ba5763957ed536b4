"""`bool-string-false` judged by what the backend says of the email: with `emailVerifiedPointer`
the run reads whether the string "false" verified it (backend.py answers `emailVerified`)."""

from conftest import ConformanceBackend, by_verdict, describe, run_config, run_report

CASES = ["bool-string-false", "ok-claims-as-strings"]


def verdicts(report, case_id):
    return {case["path"]: (case["verdict"], case["note"]) for case in report["cases"] if case["id"] == case_id}


def config(port):
    return run_config(port, cases=CASES,
                      accepted={"status": "2xx", "userPointer": "/sub", "emailVerifiedPointer": "/emailVerified"})


def test_the_correct_backend_signs_in_unverified(conformance_mock, conformance_backend):
    backend = conformance_backend("")
    report, _ = run_report(conformance_mock, config(backend.port))
    assert not by_verdict(report, "FAIL") and not by_verdict(report, "INCONCLUSIVE"), describe(report)
    judged = verdicts(report, "bool-string-false")
    # The JSON answers name emailVerified; the web path ends on a page, which the pointer cannot read.
    assert judged["native"][0] == "PASS" and judged["exchange"][0] == "PASS", judged
    assert judged["web"][0] == "WARNING" and "emailVerifiedPointer" in judged["web"][1], judged


def test_a_truthy_false_is_named(conformance_mock, conformance_backend):
    backend = conformance_backend("truthy-strings")
    report, _ = run_report(conformance_mock, config(backend.port))
    judged = verdicts(report, "bool-string-false")
    for path in ("native", "exchange"):
        verdict, note = judged[path]
        assert verdict == "WARNING" and "counted as verified" in note, judged
    assert not by_verdict(report, "FAIL"), describe(report)
