import Logging
import ServiceLifecycle

/// Writes the journal's buffered entries to the store every 250 ms, and once more at shutdown.
///
/// A journal read writes its own replica's entries first, so the interval is how late another
/// replica's show. A write keeps only the newest `journalLimit` entries (1,000 by default), so the
/// interval also bounds the rows a busy server writes only for the next write to delete them:
/// at 10,000 calls a second, every 100 ms wrote each call's entry; every 250 ms writes 4 in 10.
struct JournalService: Service {
    let state: MockState
    /// The buffered entries.
    let journal: JournalRecorder
    let logger: Logger
    var interval: Duration = .milliseconds(250)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await flush()
            }
        }
        await flush()
    }

    private func flush() async {
        do {
            try await state.flushJournal(journal)
        } catch {
            logger.debug("journal: state store unavailable", metadata: ["error": "\(error)"])
        }
    }
}
