#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads a fault rule from a `POST /__admin/faults` body, reporting every problem with its JSON path.
enum FaultRuleReader {
    /// The most rules in force at once.
    static let capacity = 100

    /// The fields a rule body may have.
    static let fields: Set<String> = [
        "endpoint", "grantType", "clientId", "error", "errorDescription", "status", "body", "retryAfterSeconds",
        "latencyMilliseconds", "drop", "truncate", "times", "fraction", "seed",
    ]

    /// The rule in `value` with id `id`, or `nil` with the problems in `reader`.
    static func read(_ value: JSONValue, id: String, now: Date, reader: inout JSONReader) -> FaultRule? {
        let root = JSONPath.root
        guard let members = reader.object(value, at: root, allowed: fields) else { return nil }
        let problemsBefore = reader.problemCount
        func string(_ name: String, pattern: (String) -> Bool, _ expected: String) -> String? {
            guard let raw = members[name], let text = reader.string(raw, at: root.member(name)) else { return nil }
            guard pattern(text) else {
                reader.report(root.member(name), expected)
                return nil
            }
            return text
        }
        func integer(_ name: String, _ range: ClosedRange<Int>) -> Int? {
            members[name].flatMap { reader.integer($0, at: root.member(name), in: range) }
        }
        func flag(_ name: String) -> Bool {
            members[name].flatMap { reader.bool($0, at: root.member(name)) } ?? false
        }
        let endpoint = reader.required(members, "endpoint", at: root).flatMap {
            reader.choice($0, at: root.member("endpoint"), of: FaultRule.Endpoint.allCases.map(\.rawValue))
        }.flatMap(FaultRule.Endpoint.init(rawValue:))
        let grantType = members["grantType"].flatMap {
            reader.choice(
                $0, at: root.member("grantType"), of: ["authorization_code", "refresh_token", "client_credentials"])
        }
        let clientId = string(
            "clientId", pattern: { (1...255).contains($0.utf8.count) }, "a client id of 1 to 255 bytes")
        let error = string(
            "error",
            pattern: { (1...64).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLowercase || $0 == "_") } },
            "an error code of 1 to 64 lowercase letters and underscores, such as invalid_grant")
        let errorDescription = string(
            "errorDescription", pattern: { $0.utf8.count <= 1_000 }, "at most 1000 bytes")
        let status = integer("status", 400...599)
        let retryAfter = integer("retryAfterSeconds", 0...86_400)
        let latency = integer("latencyMilliseconds", 0...600_000)
        let drop = flag("drop")
        let truncate = flag("truncate")
        let times = integer("times", 1...1_000_000)
        var fraction: Double?
        if let raw = members["fraction"] {
            if case .number(let number) = raw, number > 0, number <= 1 {
                fraction = number
            } else {
                reader.report(root.member("fraction"), "expected a number greater than 0 and at most 1")
            }
        }
        let seed = integer("seed", 0...2_147_483_647)
        let body = members["body"]
        if let body, (try? JSONEncoder().encode(body).count).map({ $0 > 65_536 }) ?? true {
            reader.report(root.member("body"), "at most 64 KiB")
        }

        // How the parts combine.
        func refuse(_ name: String, _ reason: String) {
            reader.report(root.member(name), reason)
        }
        if grantType != nil, endpoint != nil, endpoint != .token {
            refuse("grantType", "only token calls have a grant type")
        }
        if clientId != nil, endpoint == .keys { refuse("clientId", "keys calls carry no client") }
        if error != nil, status != nil { refuse("status", "send either error (an Apple error) or status, not both") }
        if errorDescription != nil, error == nil { refuse("errorDescription", "goes with error") }
        if body != nil, status == nil { refuse("body", "goes with status") }
        if retryAfter != nil, error == nil, status == nil { refuse("retryAfterSeconds", "goes with error or status") }
        if drop, error != nil || status != nil || truncate {
            refuse("drop", "a dropped connection sends nothing: not with error, status or truncate")
        }
        if endpoint == .notifications {
            if error != nil { refuse("error", "notifications take latencyMilliseconds, drop or truncate") }
            if status != nil { refuse("status", "notifications take latencyMilliseconds, drop or truncate") }
        }
        if error == nil, status == nil, latency == nil, !drop, !truncate,
            ["error", "status", "latencyMilliseconds", "drop", "truncate"].allSatisfy({ members[$0] == nil })
        {
            reader.report(root, "say what the rule does: error, status, latencyMilliseconds, drop or truncate")
        }
        if times != nil, fraction != nil { refuse("fraction", "send either times or fraction, not both") }
        if seed != nil, fraction == nil { refuse("seed", "goes with fraction") }

        guard let endpoint, reader.problemCount == problemsBefore else { return nil }
        return FaultRule(
            id: id, endpoint: endpoint, grantType: grantType, clientId: clientId, error: error,
            errorDescription: errorDescription, status: status, body: body, retryAfterSeconds: retryAfter,
            latencyMilliseconds: latency, drop: drop, truncate: truncate, times: times, fraction: fraction,
            seed: fraction == nil ? nil : (seed ?? 0), createdAt: now)
    }
}
