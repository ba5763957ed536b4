import Logging
import ServiceLifecycle

/// Keeps `StoreWatch` told of changes other replicas make to a shared store: while at least one
/// reader waits, it reads the store's change marks once per `interval` (one query, however many
/// wait) and wakes the topics whose mark moved; while nobody waits it reads nothing. On a store
/// this process owns alone it only waits for shutdown. Either way shutdown ends every wait.
struct StoreWatchService: Service {
    let store: any StateStore
    let logger: Logger
    /// How often a shared store is read while someone waits: a replica sees another's entries
    /// within this.
    var interval: Duration = .milliseconds(100)

    func run() async throws {
        let watch = store.watch
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                await poll(watch)
                // A service that returns before shutdown stops the whole server: the watch may
                // close first (a waiting read closes it when the server starts stopping).
                try? await gracefulShutdown()
            }
        } onGracefulShutdown: {
            watch.close()
        }
        watch.close()
    }

    private func poll(_ watch: StoreWatch) async {
        var last: [StoreWatch.Topic: String]?
        while !Task.isCancelled, !watch.isClosed {
            await watch.waitForReaders()
            guard !Task.isCancelled, !watch.isClosed else { return }
            do {
                // nil: this process is the store's only writer, and the store tells the watch itself.
                guard let marks = try await store.changeMarks() else { return }
                let moved = StoreWatch.Topic.allCases.filter { last == nil || last?[$0] != marks[$0] }
                if !moved.isEmpty { watch.changed(moved) }
                last = marks
            } catch {
                guard !Task.isCancelled else { return }
                logger.debug("store watch: state store unavailable", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: interval)
        }
    }
}

extension StoreWatchService: CustomStringConvertible {
    var description: String { "StoreWatchService" }
}
