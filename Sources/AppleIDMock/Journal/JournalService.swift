import Logging
import ServiceLifecycle

/// Writes the journal's buffered entries to the store every 100 ms, or every 250 ms while they
/// come in faster than 4,000 a second, and once more at shutdown.
///
/// A write keeps only the newest `journalLimit` entries (1,000 by default). At 10,000 calls a
/// second, writing every 100 ms stored every call's entry only for the next write to delete it;
/// every 250 ms, 4 in 10 are stored. A journal read writes its own replica's entries first.
struct JournalService: Service {
    let state: MockState
    /// The buffered entries.
    let journal: JournalRecorder
    let logger: Logger
    var interval: Duration = .milliseconds(100)
    /// How long entries may gather while they come in fast.
    var busyInterval: Duration = .milliseconds(250)
    /// Waiting entries at which they come in fast: 400 in 100 ms, so more than the journal keeps by
    /// default come in within `busyInterval`.
    static let busyCount = 400

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var written = ContinuousClock.now
            var pause = interval
            while !Task.isCancelled {
                try? await Task.sleep(for: pause)
                let since = ContinuousClock.now - written
                guard Self.writesNow(waiting: journal.count, sinceWritten: since, busyInterval: busyInterval) else {
                    pause = min(interval, busyInterval - since)
                    continue
                }
                written = ContinuousClock.now
                pause = interval
                await flush()
            }
        }
        await flush()
    }

    /// Whether to write now, `sinceWritten` after the last write, with `waiting` entries: at every
    /// tick, unless they are many and the last write is less than `busyInterval` ago.
    static func writesNow(waiting: Int, sinceWritten: Duration, busyInterval: Duration) -> Bool {
        waiting < busyCount || sinceWritten >= busyInterval
    }

    private func flush() async {
        do {
            try await state.flushJournal(journal)
        } catch {
            logger.debug("journal: state store unavailable", metadata: ["error": "\(error)"])
        }
    }
}
