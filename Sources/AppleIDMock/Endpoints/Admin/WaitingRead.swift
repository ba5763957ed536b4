import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A control-plane read that may wait (`waitSeconds`, at most 60) until what it reads satisfies the
/// caller (`minCount` entries match, the outbox is settled, a verification holds). It reads, and
/// reads again only when the store says the topic changed: no loop polls while it waits. Readers
/// are bounded by the watch (409 `limit_reached` over), and shutdown ends the wait at once, with
/// the last read.
struct WaitingRead: Sendable {
    /// The longest wait a caller may ask for.
    static let maximumSeconds = 60.0

    /// How long to wait at most (0: read once).
    var seconds: Double = 0
    /// `minCount`, when the caller gave one.
    var minCount: Int?
    /// Whether the caller gave `waitSeconds` or `minCount` (the answer then says whether the count
    /// was reached).
    var isAsked: Bool { seconds > 0 || minCount != nil }
    /// How many matches satisfy the read.
    var target: Int { minCount ?? 1 }

    /// Reads `waitSeconds` or `minCount` from the query string; false for any other parameter.
    mutating func read(_ key: Substring, _ value: String, into reader: inout JSONReader) -> Bool {
        switch key {
        case "waitSeconds":
            if Self.isPlainDecimal(value, fraction: true), let number = Double(value),
                (0...Self.maximumSeconds).contains(number)
            {
                seconds = number
            } else {
                reader.report(.query("waitSeconds"), "expected a number of seconds in 0...60")
            }
        case "minCount":
            if Self.isPlainDecimal(value, fraction: false), let number = Int(value), (1...100_000).contains(number) {
                minCount = number
            } else {
                reader.report(.query("minCount"), "expected a whole number in 1...100000")
            }
        default: return false
        }
        return true
    }

    /// Whether `text` is a plain decimal number: digits without a sign or a leading zero (`0` alone
    /// aside), and with `fraction` a point and digits after them; never `0x10`, `+1`, `03` or `1e3`.
    static func isPlainDecimal(_ text: String, fraction: Bool) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.utf8.allSatisfy({ (48...57).contains($0) }),
            whole == "0" || !whole.hasPrefix("0")
        else { return false }
        guard parts.count == 2 else { return true }
        return fraction && !parts[1].isEmpty && parts[1].utf8.allSatisfy { (48...57).contains($0) }
    }

    /// Reads `waitSeconds` from a JSON body member.
    static func seconds(_ value: JSONValue, at path: JSONPath, into reader: inout JSONReader) -> Double? {
        guard case .number(let number) = value, number.isFinite, (0...maximumSeconds).contains(number) else {
            reader.report(path, "expected a number of seconds in 0...60")
            return nil
        }
        return number
    }

    /// Runs `read` until `satisfied` holds for its result or the wait is over; returns the last
    /// result and whether it was satisfied. The wait counts against `scope`'s share of the watch,
    /// and reads again only when `topic` changed in `scope` (in every namespace with
    /// `everyNamespace`) and, with `accepts`, once as many values it accepts were written as
    /// `shortfall` says the last read lacked (one when it does not say). With `world`, its control
    /// record is read before each read, so a namespace deleted meanwhile ends the wait (`NamespaceGone`).
    func run<T: Sendable>(
        _ topic: StoreWatch.Topic, watch: StoreWatch, in scope: NamespaceScope, everyNamespace: Bool = false,
        accepting accepts: (@Sendable (any Sendable) -> Bool)? = nil, key: String? = nil,
        shortfall: ((T) -> Int)? = nil, checking world: MockState? = nil,
        read: () async throws -> T, satisfied: (T) -> Bool
    ) async throws -> (value: T, satisfied: Bool) {
        guard seconds > 0 else {
            let value = try await read()
            return (value, satisfied(value))
        }
        let namespace = scope.isDefault ? nil : scope.name
        switch watch.admit(for: namespace) {
        case nil: break
        case .closed:
            let value = try await read()
            return (value, satisfied(value))
        case .full:
            throw ControlRefusal.limitReached(
                "\(watch.limit) reads already wait on this server; try again when one ends, or without waitSeconds",
                limit: watch.limit)
        case .othersFull:
            let shared = watch.limit - watch.defaultReserve
            throw ControlRefusal.limitReached(
                "\(shared) reads already wait in namespaces other than default, all they may hold of the server's \(watch.limit) (\(watch.defaultReserve) are kept for default); try again when one ends, or without waitSeconds",
                limit: shared)
        case .namespaceShare:
            throw ControlRefusal.limitReached(
                "\(watch.namespaceShare) reads already wait in namespace \(scope.name), its share of the server's \(watch.limit); try again when one ends, or without waitSeconds",
                limit: watch.namespaceShare)
        }
        defer { watch.release(for: namespace) }
        let deadline = ContinuousClock.now + .milliseconds(Int64((seconds * 1000).rounded()))
        // Subscribed before the first read: a change made while a read runs wakes the wait at once.
        let subscription = watch.subscribe(
            StoreWatch.Interest(topic, in: namespace, everyNamespace: everyNamespace, accepts: accepts, key: key))
        defer { watch.unsubscribe(subscription) }
        return try await withGracefulShutdownHandler {
            while true {
                // A namespace deleted while its read waits answers as the control plane does for one
                // gone (404), not with an empty read at the deadline.
                if let world { _ = try await world.current() }
                let value = try await read()
                let done = satisfied(value)
                if done || ContinuousClock.now >= deadline || watch.isClosed || Task.isCancelled {
                    return (value, done)
                }
                await watch.next(subscription, needing: shortfall.map { max(1, $0(value)) }, until: deadline)
                // Shutdown answers with what was read: the server is stopping, and a read now
                // (on PostgreSQL, a query) may be cut short with it.
                if watch.isClosed || Task.isCancelled { return (value, done) }
            }
        } onGracefulShutdown: {
            watch.close()
        }
    }
}
