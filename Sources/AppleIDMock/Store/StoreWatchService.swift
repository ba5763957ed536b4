import Logging
import ServiceLifecycle

/// Keeps `StoreWatch` told of changes other replicas make to a shared store (`SharedStore`): while
/// at least one reader waits, it reads the store's change marks once per `interval` (one query,
/// however many wait) and wakes the topics whose mark moved; while nobody waits it reads nothing.
/// On a store this process owns alone (which tells the watch itself) it only waits for shutdown.
/// Either way shutdown ends every wait.
struct StoreWatchService: Service {
    /// The store every namespace shares (not a namespace's view of it).
    let store: any StateStore
    let logger: Logger
    /// How often a shared store is read while someone waits: a replica sees another's entries
    /// within this.
    var interval: Duration = .milliseconds(100)

    func run() async throws {
        let watch = store.watch
        let shared = store as? any SharedStore
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                if let shared { await poll(shared, watch) }
                // A service that returns before shutdown stops the whole server: the watch may
                // close first (a waiting read closes it when the server starts stopping).
                try? await gracefulShutdown()
            }
        } onGracefulShutdown: {
            watch.close()
        }
        watch.close()
    }

    private func poll(_ shared: any SharedStore, _ watch: StoreWatch) async {
        var last: [StoreWatch.Topic: String]?
        while !Task.isCancelled, !watch.isClosed {
            await watch.waitForReaders()
            guard !Task.isCancelled, !watch.isClosed else { return }
            do {
                let marks = try await shared.changeMarks()
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
