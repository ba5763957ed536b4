import Logging
import ServiceLifecycle

/// Writes the journal's buffered entries to the store every 100 ms, and once more at shutdown.
struct JournalService: Service {
    let state: MockState
    /// The buffered entries.
    let journal: JournalRecorder
    let logger: Logger
    var interval: Duration = .milliseconds(100)

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
