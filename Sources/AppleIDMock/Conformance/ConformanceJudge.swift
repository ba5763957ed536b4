/// The verdict of one case from what the backend answered: pure, so each rule is tested without a
/// backend.
enum ConformanceJudge {
    /// What was seen of the backend for one credential.
    struct Seen: Sendable {
        /// How its answer read (`nil`: no answer).
        var reading: ConformanceAcceptance.Reading?
        /// Why no answer came.
        var error: String?
        /// The token's `sub`, and the other user the body named (`sub-not-bound`).
        var tokenSub: String?
        var claimedSub: String?
        /// The answer's status, if one came.
        var status: Int? = nil
        /// Whether the acceptance rule reads the signed-in user (`userPointer`).
        var readsUser = false
    }

    /// The verdict, what the backend did, and why.
    static func verdict(
        _ testCase: ConformanceCase, on path: ConformancePath, _ seen: Seen, knownFindings: Set<ConformanceCase>
    ) -> (verdict: ConformanceReport.Verdict, observed: String, note: String) {
        guard let reading = seen.reading else {
            return (.inconclusive, "none", "no answer from the backend: \(seen.error ?? "unknown error")")
        }
        let observed = reading.accepted ? "accepted" : "rejected"
        let weight = testCase.weight(on: path)
        let (verdict, note): (ConformanceReport.Verdict, String)
        switch (testCase.expected, reading.accepted) {
        case (.accept, true):
            (verdict, note) = (.pass, "accepted, as it must be")
        case (.accept, false):
            (verdict, note) =
                weight == .must
                ? (.fail, "refused a credential Apple sends: real users would be locked out")
                : (.warning, "refused; it should be accepted")
        case (.reject, false):
            if testCase == .nonceAbsentUnsupported {
                (verdict, note) = (.info, "refused a token without a nonce from a device that does not support one")
            } else if testCase == .jwsMalformed, let status = seen.status, status >= 500 {
                (verdict, note) = (
                    .warning,
                    "refused, but with HTTP \(status): a malformed credential is the client's error (4xx); a 5xx looks like an outage to monitoring and invites retries"
                )
            } else {
                (verdict, note) = (.pass, "refused, as it should be")
            }
        case (.reject, true):
            if testCase == .subNotBound, !seen.readsUser {
                (verdict, note) = (
                    .skipped,
                    "accepted, but whom it signed in cannot be read: give accepted.userPointer to judge sub-not-bound"
                )
            } else if testCase == .subNotBound, let user = reading.user {
                (verdict, note) =
                    if user == seen.claimedSub {
                        (.fail, "signed in the user the body named, not the token's")
                    } else if user == seen.tokenSub {
                        (.pass, "signed in the token's user, not the one the body named")
                    } else {
                        (
                            .skipped,
                            "accepted, but userPointer names neither the token's sub nor the body's: point it at the signed-in user's Apple sub to judge sub-not-bound"
                        )
                    }
            } else if testCase == .boolStringFalse, let verified = reading.emailVerified {
                (verdict, note) =
                    verified
                    ? (.warning, "signed in with the email counted as verified: the string \"false\" read as true")
                    : (.pass, "signed in with the email unverified, as it must be")
            } else {
                switch weight {
                case .must: (verdict, note) = (.fail, "accepted a credential Apple never sends")
                case .should:
                    (verdict, note) =
                        testCase == .boolStringFalse
                        ? (
                            .warning,
                            "accepted; whether the email counted as verified cannot be read (an emailVerifiedPointer reads it from a JSON answer)"
                        )
                        : (.warning, "accepted; hardening says refuse")
                case .policy:
                    (verdict, note) =
                        testCase == .nonceAbsentUnsupported
                        ? (.info, "accepted a token without a nonce from a device that does not support one")
                        : (.warning, "accepted; a policy choice worth reviewing")
                }
            }
        }
        if verdict == .fail, knownFindings.contains(testCase) {
            return (.acceptedRisk, observed, note + " (listed in knownFindings)")
        }
        return (verdict, observed, note)
    }
}
