#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The body of `POST /__admin/journal/verify`, read with errors that name the field and the reason:
/// `{"match": {…}, "count": {"exactly" | "atLeast" | "atMost": n}, "waitSeconds": 5, "since": …}`
/// or `{"sequence": [{…}, {…}], "waitSeconds": 5}`.
struct VerificationRequest: Sendable {
    var verification: JournalVerification
    var wait = WaitingRead()

    /// Reads `body`; refuses it (400) listing every problem.
    static func read(_ body: JSONValue) throws(ControlRefusal) -> VerificationRequest {
        var reader = JSONReader()
        var expectation: JournalVerification.Expectation?
        var since: Date?
        var wait = WaitingRead()
        if let members = reader.object(
            body, at: .root, allowed: ["match", "count", "sequence", "waitSeconds", "since"])
        {
            switch (members["match"], members["sequence"]) {
            case (let match?, nil):
                let pattern = Self.match(match, at: .root.member("match"), reader: &reader)
                var count: CountExpectation? = .atLeastOne
                if let raw = members["count"] { count = Self.count(raw, at: .root.member("count"), reader: &reader) }
                if let pattern, let count { expectation = .count(pattern, count) }
            case (nil, let sequence?):
                if members["count"] != nil {
                    reader.report(
                        .root.member("count"), "not with sequence: a sequence holds when its steps come in order")
                }
                if let steps = reader.array(sequence, at: .root.member("sequence")) {
                    if !(1...20).contains(steps.count) {
                        reader.report(.root.member("sequence"), "expected 1 to 20 steps, found \(steps.count)")
                    }
                    let patterns = steps.enumerated().map {
                        Self.match($0.element, at: .root.member("sequence").index($0.offset), reader: &reader)
                    }
                    expectation = .sequence(patterns.compactMap { $0 })
                }
            case (.some, .some):
                reader.report(.root, "give either match (with count) or sequence, not both")
            case (nil, nil):
                reader.report(.root.member("match"), "missing required field (or give sequence)")
            }
            if let value = members["waitSeconds"] {
                wait.seconds = WaitingRead.seconds(value, at: .root.member("waitSeconds"), into: &reader) ?? 0
            }
            if let value = members["since"] { since = reader.date(value, at: .root.member("since")) }
        }
        try reader.refuseBodyIfInvalid()
        guard let expectation else {
            throw ControlRefusal.invalidBody("nothing to verify")
        }
        return VerificationRequest(
            verification: JournalVerification(expectation: expectation, since: since), wait: wait)
    }

    /// A match object: known fields, each a string (`status` a whole number), at least one.
    private static func match(_ value: JSONValue, at path: JSONPath, reader: inout JSONReader) -> JournalMatch? {
        let fields = JournalMatch.Field.allCases
        guard let members = reader.object(value, at: path, allowed: Set(fields.map(\.rawValue))) else { return nil }
        var match = JournalMatch()
        for field in fields {
            guard let raw = members[field.rawValue] else { continue }
            let fieldPath = path.member(field.rawValue)
            switch field {
            case .status:
                if let status = reader.integer(raw, at: fieldPath, in: 100...599) {
                    match.expected.append((field, String(status)))
                }
            case .endpoint:
                let endpoints = JournalEndpoint.all
                if let endpoint = reader.choice(raw, at: fieldPath, of: endpoints) {
                    match.expected.append((field, endpoint))
                }
            default:
                if let text = reader.string(raw, at: fieldPath) {
                    if text.isEmpty {
                        reader.report(fieldPath, "must not be empty")
                    } else {
                        match.expected.append((field, text))
                    }
                }
            }
        }
        if members.isEmpty { reader.report(path, "name at least one field to match") }
        return match
    }

    /// A count object: `exactly`, or `atLeast` and/or `atMost` (not inverted).
    private static func count(_ value: JSONValue, at path: JSONPath, reader: inout JSONReader) -> CountExpectation? {
        guard let members = reader.object(value, at: path, allowed: ["exactly", "atLeast", "atMost"]) else {
            return nil
        }
        func number(_ name: String) -> Int? {
            members[name].flatMap { reader.integer($0, at: path.member(name), in: 0...1_000_000) }
        }
        let exactly = number("exactly")
        let atLeast = number("atLeast")
        let atMost = number("atMost")
        if members.isEmpty {
            reader.report(path, "give exactly, atLeast or atMost")
            return nil
        }
        if members["exactly"] != nil, members["atLeast"] != nil || members["atMost"] != nil {
            reader.report(path.member("exactly"), "not with atLeast or atMost")
            return nil
        }
        if let exactly { return .exactly(exactly) }
        if let atLeast, let atMost, atLeast > atMost {
            reader.report(path, "inverted: atLeast (\(atLeast)) is more than atMost (\(atMost))")
            return nil
        }
        guard atLeast != nil || atMost != nil else { return nil }
        return CountExpectation(atLeast: atLeast, atMost: atMost)
    }
}
