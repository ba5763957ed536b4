import ServiceLifecycle
import Synchronization

/// Every conformance run of this process, the newest `kept`, and the queue the service drives them
/// from (`ConformanceService`).
final class ConformanceRuns: Sendable {
    /// How many finished runs are kept to be read.
    static let kept = 20
    /// How many runs may wait or run at once.
    static let limit = 4

    /// The codes armed by runs on the `exchange` path.
    let arms = ConformanceArms()
    /// The fetches of the attacker's routes, which runs add to their cases' journal notes.
    let attackerFetches = AttackerFetches()
    private let runs = Mutex<[ConformanceRun]>([])
    private let queue: (stream: AsyncStream<ConformanceRun>, continuation: AsyncStream<ConformanceRun>.Continuation)

    init() {
        queue = AsyncStream.makeStream(of: ConformanceRun.self)
    }

    /// Queues `run`; refused when `limit` runs are under way.
    func start(_ run: ConformanceRun) throws(ControlRefusal) {
        try runs.withLock { runs throws(ControlRefusal) in
            guard runs.filter({ !$0.isFinished }).count < Self.limit else {
                throw ControlRefusal.limitReached(
                    "\(Self.limit) conformance runs are under way; wait for one to finish", limit: Self.limit)
            }
            runs.append(run)
            let finished = runs.filter(\.isFinished)
            for oldest in finished.prefix(max(0, finished.count - Self.kept)) {
                runs.removeAll { $0 === oldest }
            }
        }
        queue.continuation.yield(run)
    }

    /// Whether another run may start now.
    var hasRoom: Bool { runs.withLock { runs in runs.filter { !$0.isFinished }.count < Self.limit } }

    /// The run `id`, if it is kept.
    func run(_ id: String) -> ConformanceRun? {
        runs.withLock { runs in runs.first { $0.id == id } }
    }

    /// Every kept run, oldest first.
    var all: [ConformanceRun] { runs.withLock { $0 } }

    /// The runs to drive, as they are started; ends on graceful shutdown.
    var started: AsyncStream<ConformanceRun> { queue.stream }

    /// Ends the queue (no run starts after it).
    func close() { queue.continuation.finish() }
}

/// Drives the conformance runs as they are started, several at once, each to its end: background
/// work of the server, stopped with it.
struct ConformanceService: Service, CustomStringConvertible {
    let runs: ConformanceRuns
    let runner: ConformanceRunner

    var description: String { "ConformanceService" }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            for await run in runs.started.cancelOnGracefulShutdown() {
                group.addTask { await runner.drive(run) }
            }
        }
    }
}
