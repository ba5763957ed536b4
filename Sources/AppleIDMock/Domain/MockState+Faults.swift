#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The control plane's fault rules: added, listed, cleared, and consumed by the calls they match.
/// The rules live in the control record and their counts in the store, so with replicas "the next
/// 3 token calls" means the next 3 across all of them.
extension MockState {
    /// A rule with how often it matched and fired.
    struct FaultStatus: Sendable {
        var rule: FaultRule
        var counts: FaultCounts
        /// Matching calls so far.
        var matched: Int { counts.matched }
        /// Calls it fired on so far.
        var fired: Int { counts.fired }
        /// Calls it will still fire on (`nil`: no limit).
        var remaining: Int? { rule.times.map { max(0, $0 - counts.fired) } }
    }

    /// Adds the rule described by `body`; 400 naming every problem, 409 past `FaultRuleReader.capacity`.
    func addFault(_ body: JSONValue) async throws -> FaultRule {
        try await changeControl { control, active, _ in
            var reader = JSONReader()
            let rule = FaultRuleReader.read(
                body, id: "f\(control.nextFaultNumber)", now: active.now, reader: &reader)
            try reader.refuseBodyIfInvalid()
            guard let rule else { throw ControlRefusal.invalidBody("not a fault rule") }
            guard control.faults.count < FaultRuleReader.capacity else {
                throw ControlRefusal.limitReached(
                    "at most \(FaultRuleReader.capacity) fault rules; clear some first", limit: FaultRuleReader.capacity
                )
            }
            control.faults.append(rule)
            control.nextFaultNumber += 1
            return rule
        }
    }

    /// Every rule in force, oldest first, with its counts.
    func faultStatuses() async throws -> [FaultStatus] {
        let rules = try await current().control.faults
        guard !rules.isEmpty else { return [] }
        let counts = try await store.transaction { transaction in
            try await transaction.list(Spaces.faultCounts)
        }
        let byId = Dictionary(counts.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        return rules.map { FaultStatus(rule: $0, counts: byId[$0.id] ?? FaultCounts()) }
    }

    /// Removes the rule `id`; 404 if there is none.
    func deleteFault(_ id: String) async throws {
        try await changeControl { control, _, transaction in
            guard control.faults.contains(where: { $0.id == id }) else {
                let ids = control.faults.map(\.id)
                throw ControlRefusal.notFound(
                    "no fault rule \"\(id)\"; rules: \(ids.isEmpty ? "none" : ids.joined(separator: ", "))")
            }
            control.faults.removeAll { $0.id == id }
            try await transaction.delete(Spaces.faultCounts, id)
        }
    }

    /// Removes every rule; returns how many there were.
    func clearFaults() async throws -> Int {
        try await changeControl { control, _, transaction in
            let count = control.faults.count
            control.faults = []
            try await transaction.clear([Spaces.faultCounts.name])
            return count
        }
    }

    /// The rule that fires on this call, if any: the first rule in force that matches and decides to
    /// fire, counted in one step. Costs nothing when no rule names `endpoint`.
    func firingFault(
        _ endpoint: FaultRule.Endpoint, grantType: String?, clientId: String?, in active: ActiveScenario
    ) async throws -> FaultRule? {
        guard active.control.faults.contains(where: { $0.endpoint == endpoint }) else { return nil }
        let confirmation = active.confirmation
        let fired: FaultRule?
        do {
            fired = try await countFaults(endpoint, grantType: grantType, clientId: clientId, active, confirmation)
        } catch {
            // A step the database failed may have counted the call: it is not run again.
            if !(error is ControlStale) { confirmation?.confirm() }
            throw error
        }
        confirmation?.confirm()
        return fired
    }

    /// Counts the call against the rules in force, in one step; the rule that fires, if any.
    private func countFaults(
        _ endpoint: FaultRule.Endpoint, grantType: String?, clientId: String?, _ active: ActiveScenario,
        _ confirmation: ControlConfirmation?
    ) async throws -> FaultRule? {
        try await store.transaction { transaction -> FaultRule? in
            let control = try await transaction.get(Spaces.control, ControlState.key)
            // The call runs again if the rules it was answered on changed: it is counted once.
            if confirmation?.isTentative == true { try Self.require(control, of: active, confirmation) }
            let rules = control?.faults ?? []
            for rule in rules where rule.matches(endpoint, grantType: grantType, clientId: clientId) {
                var counts = try await transaction.get(Spaces.faultCounts, rule.id) ?? FaultCounts()
                guard !rule.isSpent(fired: counts.fired) else { continue }
                let fires = rule.fires(call: counts.matched, fired: counts.fired)
                counts.matched += 1
                if fires { counts.fired += 1 }
                try await transaction.put(Spaces.faultCounts, rule.id, counts)
                if fires { return rule }
            }
            return nil
        }
    }
}
