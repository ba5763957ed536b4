/// The state a request runs in, and running a request again when a reset lands while it runs.
extension MockState {
    /// `read` (the state read when a request started), or the state in force now.
    func current(or read: ActiveScenario?) async throws -> ActiveScenario {
        if let read { return read }
        return try await current()
    }

    /// How often a request is run again when resets keep landing while it runs.
    static let rerunsAfterReset = 8

    /// Runs `body` in the state in force (`initial`, read when the request started, or read now); when
    /// a reset or scenario switch lands between reading that state and the request's step on the
    /// session, runs it again in the new state, so it is answered in Apple's vocabulary as if it had
    /// come after the reset (a wiped code or token is `invalid_grant`), never with an undocumented
    /// error.
    func rerunningAfterResets<T>(from initial: ActiveScenario?, _ body: (ActiveScenario) async throws -> T)
        async throws -> T
    {
        var active: ActiveScenario
        if let initial { active = initial } else { active = try await current() }
        for _ in 0..<Self.rerunsAfterReset {
            do {
                return try await body(active)
            } catch is SessionChanged {
                active = try await current()
            }
        }
        return try await body(active)
    }
}
