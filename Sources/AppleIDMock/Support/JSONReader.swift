#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads typed values out of a `JSONValue` tree while collecting every problem it meets, each with
/// its JSON path, so one pass over a scenario file reports all of its mistakes at once.
struct JSONReader {
    /// How many problems are kept with their path and reason; the rest are only counted, so a
    /// document with a hundred thousand mistakes costs no more memory than one with fifty.
    static let keptProblems = 50

    /// The first `keptProblems` problems found, in document order.
    private(set) var problems: [(path: JSONPath, reason: String)] = []
    /// How many problems were found in all.
    private(set) var problemCount = 0

    /// Records a problem at `path`.
    mutating func report(_ path: JSONPath, _ reason: String) {
        problemCount += 1
        if problems.count < Self.keptProblems { problems.append((path, reason)) }
    }

    /// The problems as an error about `file`, or `nil` if there are none.
    func error(file: String) -> ScenarioError? {
        guard problemCount > 0 else { return nil }
        var error = ScenarioError(
            problems: problems.map { .init(file: file, path: $0.path.description, reason: $0.reason) })
        error.omitted = problemCount - problems.count
        return error
    }

    /// Refuses a request body that had problems, naming each (the control plane's 400).
    func refuseBodyIfInvalid() throws(ControlRefusal) {
        if let error = error(file: "request body") { throw ControlRefusal(error) }
    }

    /// Refuses a request whose query parameters had problems, naming each (the control plane's 400).
    func refuseQueryIfInvalid() throws(ControlRefusal) {
        if let error = error(file: "request") { throw ControlRefusal(error) }
    }

    /// The members of an object, reporting unknown ones; `nil` (and a problem) if it is not an object.
    mutating func object(_ value: JSONValue, at path: JSONPath, allowed: Set<String>) -> [String: JSONValue]? {
        guard case .object(let members) = value else {
            report(path, "expected an object, found \(value.typeDescription)")
            return nil
        }
        for name in members.keys.sorted() where !allowed.contains(name) {
            let known = allowed.filter { !$0.hasPrefix("$") }.sorted().joined(separator: ", ")
            report(path.member(name), "unknown field; known fields here: \(known)")
        }
        return members
    }

    /// The elements of an array; `nil` (and a problem) if it is not an array.
    mutating func array(_ value: JSONValue, at path: JSONPath) -> [JSONValue]? {
        guard case .array(let elements) = value else {
            report(path, "expected an array, found \(value.typeDescription)")
            return nil
        }
        return elements
    }

    /// A string; `nil` (and a problem) if it is not a string.
    mutating func string(_ value: JSONValue, at path: JSONPath) -> String? {
        guard case .string(let text) = value else {
            report(path, "expected a string, found \(value.typeDescription)")
            return nil
        }
        return text
    }

    /// A boolean; `nil` (and a problem) if it is not one.
    mutating func bool(_ value: JSONValue, at path: JSONPath) -> Bool? {
        guard case .bool(let flag) = value else {
            report(path, "expected a boolean, found \(value.typeDescription)")
            return nil
        }
        return flag
    }

    /// A whole number within `range`; `nil` (and a problem) otherwise.
    mutating func integer(_ value: JSONValue, at path: JSONPath, in range: ClosedRange<Int>) -> Int? {
        guard case .number(let number) = value, number.rounded() == number, abs(number) < 1e15 else {
            report(path, "expected a whole number, found \(value.typeDescription)")
            return nil
        }
        guard range.contains(Int(number)) else {
            report(path, "\(Int(number)) is out of range \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return Int(number)
    }

    /// One of a fixed set of strings; `nil` (and a problem) otherwise.
    mutating func choice(_ value: JSONValue, at path: JSONPath, of choices: [String]) -> String? {
        guard let text = string(value, at: path) else { return nil }
        guard choices.contains(text) else {
            report(path, "\"\(text)\" is not one of: \(choices.joined(separator: ", "))")
            return nil
        }
        return text
    }

    /// An instant written as ISO 8601 or epoch seconds, within the mock clock's range; `nil` (and a problem) otherwise.
    mutating func date(_ value: JSONValue, at path: JSONPath) -> Date? {
        var date: Date?
        switch value {
        case .number(let seconds): date = Date(timeIntervalSince1970: seconds)
        case .string(let text):
            date = ISO8601Instant.parse(text)
            if date == nil { report(path, "not an ISO 8601 date-time such as 2026-01-01T00:00:00Z") }
        default: report(path, "expected an ISO 8601 string or epoch seconds, found \(value.typeDescription)")
        }
        if let date, !MockClock.validRange.contains(date) {
            report(path, "must be between 1970-01-01 and 9999-12-31")
            return nil
        }
        return date
    }

    /// A required member; reports it missing when absent.
    mutating func required(_ members: [String: JSONValue], _ name: String, at path: JSONPath) -> JSONValue? {
        guard let value = members[name] else {
            report(path.member(name), "missing required field")
            return nil
        }
        return value
    }
}
