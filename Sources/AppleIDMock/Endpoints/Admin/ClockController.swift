import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/clock`: read the mock's clock, move it, freeze it, or put it back to real time.
struct ClockController: Sendable {

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.clock)) { _, context in try await self.clock(context.world, context) }
        group.post(RouterPath(AdminPath.clock)) { request, context in try await self.moveClock(context.world, request)
        }
    }

    /// The mock's time as shown.
    private struct ClockView: Encodable {
        var now: Int
        var iso8601: String
        var offsetSeconds: Double
        /// Whether the clock stands still.
        var frozen: Bool
    }

    /// The mock's clock (without `context`: read after a change).
    private func clock(_ state: MockState, _ context: WorldRequestContext? = nil) async throws -> Response {
        let active = try await state.current(or: context?.active)
        let now = active.now
        return Responses.adminJSON(
            ClockView(
                now: Int(now.timeIntervalSince1970), iso8601: now.ISO8601Format(),
                offsetSeconds: active.control.clockOffsetSeconds, frozen: active.control.frozenAt != nil))
    }

    private func moveClock(_ state: MockState, _ request: Request) async throws -> Response {
        var reader = JSONReader()
        var change: MockState.ClockChange?
        let body = try await AdminBody.json(request)
        let members = reader.object(body, at: .root, allowed: ["advanceSeconds", "now", "reset", "freeze"]) ?? [:]
        if members.count != 1 {
            reader.report(
                .root,
                "send exactly one of advanceSeconds, now (epoch seconds or ISO 8601), reset: true, or freeze: true/false"
            )
        }
        if let raw = members["freeze"], let flag = reader.bool(raw, at: JSONPath.root.member("freeze")) {
            change = .freeze(flag)
        }
        if let raw = members["advanceSeconds"],
            let seconds = reader.integer(
                raw, at: JSONPath.root.member("advanceSeconds"), in: -31_536_000_00...31_536_000_00)
        {
            change = .advance(seconds: Double(seconds))
        }
        if let raw = members["now"], let date = reader.date(raw, at: JSONPath.root.member("now")) {
            change = .set(date)
        }
        if let raw = members["reset"], let flag = reader.bool(raw, at: JSONPath.root.member("reset")) {
            if flag {
                change = .reset
            } else {
                reader.report(JSONPath.root.member("reset"), "only reset: true is meaningful")
            }
        }
        try reader.refuseBodyIfInvalid()
        if let change, try await !state.moveClock(change) {
            let field = members.keys.first ?? "now"
            throw ControlRefusal.invalidBody(
                "the clock stays within 1970-01-01 and 9999-12-31", at: JSONPath.root.member(field).description)
        }
        return try await clock(state)
    }
}
