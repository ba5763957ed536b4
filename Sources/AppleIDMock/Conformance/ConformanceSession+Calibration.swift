/// A path's calibration: the run learns what acceptance and refusal look like before it judges any
/// case.
extension ConformanceSession {
    /// Calibrates `path` and records what it learnt: the valid credential (`ok-baseline`) must be
    /// accepted, signed by the run's key or, if refused, by another key the run publishes (a backend
    /// that takes one key whatever the `kid`, the JWKS's first, accepts only that one: the run then
    /// signs with it, so that `ok-kid-not-first` names the fault whatever order the JWKS was in);
    /// then a credential that is not a JWS at all must read as refused. Returns why the path's cases
    /// are not sent, or `nil` when they are.
    mutating func calibrate(_ path: ConformancePath, _ target: Target) async throws -> String? {
        var baseline = try await send(.okBaseline, variant: "", on: path, target)
        if baseline.observed == "rejected" {
            baseline = try await baselineWithAnotherKey(path, target, refused: baseline)
        }
        var calibration = ConformanceReport.Calibration(
            path: path.rawValue, valid: baseline.observed, signingKid: keys.signing.kid, invalid: nil, usable: false,
            note: "")
        guard baseline.verdict == .pass else {
            for result in await withJournal([baseline]) { run.record(result) }
            calibration.note = "the valid credential was not accepted: no other case is sent on this path"
            run.record(calibration)
            return "not sent: the valid credential was not accepted at calibration (see ok-baseline)"
        }
        let probe = try await send(.jwsMalformed, variant: ConformanceTokens.calibrationVariant, on: path, target)
        calibration.invalid = probe.observed
        calibration.request = probe.request
        calibration.response = probe.response
        var unusable: String?
        var signedIn: ConformanceReport.CaseResult?
        let rule = target.accepted ?? config.accepted
        let tellsSignIns =
            rule.bodyContains != nil || rule.cookie != nil || rule.userPointer != nil
            || (path == .web && rule.finalUrlContains != nil)
        switch probe.observed {
        case "accepted" where tellsSignIns:
            // The rule names what only a sign-in shows, and a credential that is not a JWS showed
            // it: a hole, not a rule that cannot tell.
            var hole = probe
            hole.verdict = config.knownFindings.contains(.jwsMalformed) ? .acceptedRisk : .fail
            hole.note = "signed in on a credential that is not a JWS at all (the calibration's probe)"
            signedIn = hole
            calibration.usable = true
            calibration.note =
                "a credential that is not a JWS signed in, as the acceptance rule reads it: recorded as a FAIL of jws-malformed; the cases are sent"
        case "accepted":
            let prefix = path == .notifications ? "notifications.accepted." : "accepted."
            let names =
                path == .web
                ? ["bodyContains", "cookie", "finalUrlContains", "userPointer"]
                : ["bodyContains", "cookie", "userPointer"]
            let named = names.map { prefix + $0 }
            let fields = named.dropLast().joined(separator: ", ") + " or " + (named.last ?? "")
            calibration.note =
                "a credential that is not a JWS at all read as accepted, like the valid one: the acceptance rule cannot tell a refusal from a sign-in; say what only a sign-in shows with \(fields)"
            baseline.verdict = .inconclusive
            baseline.note = "accepted, but so was a credential that is not a JWS at all (see the calibration)"
            unusable =
                "not sent: the acceptance rule cannot tell a refusal from a sign-in (a credential that is not a JWS read as accepted; see the calibration): give \(fields)"
        case "rejected":
            calibration.usable = true
            calibration.note = "the valid credential read as accepted and a credential that is not a JWS as refused"
        default:
            calibration.usable = true
            calibration.note =
                "the credential that is not a JWS got no answer (\(probe.response?.error ?? "none")): refusals are read as the acceptance rule says, unchecked"
        }
        // The probe's send closed the baseline's window.
        let recorded = await withJournal([signedIn, baseline].compactMap { $0 })
        for result in recorded { run.record(result) }
        run.record(calibration)
        return unusable
    }

    /// The valid credential signed by each other key the run publishes, until one is accepted: that
    /// one's result (the run signs with its key from then on), or `refused` with a note.
    private mutating func baselineWithAnotherKey(
        _ path: ConformancePath, _ target: Target, refused: ConformanceReport.CaseResult
    ) async throws -> ConformanceReport.CaseResult {
        let first = keys.signing
        for other in keys.published where other.kid != first.kid {
            keys.signing = other
            var retry = try await send(.okBaseline, variant: "", on: path, target)
            if retry.verdict == .pass {
                retry.note =
                    "accepted when signed by the published key \(other.kid), refused when signed by \(first.kid): does the backend take one key whatever the kid (the JWKS's first)? The run signs with \(other.kid) from here on; ok-kid-not-first sends the others"
                return retry
            }
        }
        keys.signing = first
        var result = refused
        if keys.published.count > 1 { result.note += "; refused signed by every other published key too" }
        return result
    }
}
