import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One backend conformance run: its config, its namespace, its report as it grows, and the reads
/// waiting for it to finish.
final class ConformanceRun: Sendable {
    let id: String
    let config: ConformanceConfig
    /// Where the run works: a namespace of its own (its keys, clock, journal).
    let namespace: String
    /// The mock's base URL as the backend reaches it (the config's `mockUrl`, else as the run's
    /// starter reached it): where the attacker's JWKS and certificate that `key-header-injection`
    /// names are served.
    let baseURL: String
    private let state: Mutex<(report: ConformanceReport, waiters: [Int: CheckedContinuation<Void, Never>], next: Int)>

    init(id: String, config: ConformanceConfig, namespace: String, baseURL: String, startedAt: Date) {
        self.id = id
        self.config = config
        self.namespace = namespace
        self.baseURL = baseURL
        let report = ConformanceReport(
            id: id, state: "running", namespace: namespace, startedAt: startedAt.ISO8601Format(), finishedAt: nil,
            summary: ConformanceReport.summary(of: []), cases: [], error: nil)
        state = Mutex((report, [:], 0))
    }

    /// The report as it stands.
    var report: ConformanceReport { state.withLock { $0.report } }

    /// Whether the run has ended.
    var isFinished: Bool { state.withLock { $0.report.state == "finished" } }

    /// Adds a case's result.
    func record(_ result: ConformanceReport.CaseResult) {
        state.withLock { state in
            state.report.cases.append(result)
            state.report.summary = ConformanceReport.summary(of: state.report.cases)
        }
    }

    /// Adds a path's calibration.
    func record(_ calibration: ConformanceReport.Calibration) {
        state.withLock { $0.report.calibration.append(calibration) }
    }

    /// Ends the run (with why it could not go on, if it could not) and wakes the reads waiting for it.
    func finish(error: String? = nil, at date: Date = Date()) {
        let waiters = state.withLock { state in
            state.report.state = "finished"
            state.report.finishedAt = date.ISO8601Format()
            state.report.error = error
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the run has finished or at `deadline`, whichever comes first.
    func waitUntilFinished(until deadline: ContinuousClock.Instant) async {
        guard deadline > .now else { return }
        await withTaskGroup(of: Void.self) { race in
            race.addTask { await self.finished() }
            race.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            _ = await race.next()
            race.cancelAll()
        }
    }

    private func finished() async {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    guard state.report.state != "finished", !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
