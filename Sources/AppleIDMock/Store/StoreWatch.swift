import Synchronization

/// Wakes control-plane reads that wait for the journal, the outbox or the mailbox to change
/// (`waitSeconds` on `GET /__admin/journal`, `…/notifications`, `…/mail`, and journal
/// verification). Nothing polls per waiter: a memory (or SQLite) store tells the watch what each
/// committed step wrote; PostgreSQL, which replicas share, is read once per interval while anyone
/// waits (`StoreWatchService`). The number of waiters is bounded, and shutdown wakes them all.
final class StoreWatch: Sendable {
    /// What a reader can wait on.
    enum Topic: Int, Sendable, CaseIterable {
        case journal, outbox, mail

        /// The store spaces whose changes concern the topic.
        var spaces: [String] {
            switch self {
            case .journal: [Spaces.journal.name]
            case .outbox: [Spaces.outbox.name]
            case .mail: [Spaces.mail.name]
            }
        }

        /// The topic a space's changes concern, if any (in any namespace: waiters of one namespace
        /// woken by another's change read again and wait on).
        static func of(space stored: String) -> Topic? {
            let space = StoredSpaceName.spaceName(in: stored)
            if space == Spaces.journal.name { return .journal }
            if space == Spaces.outbox.name { return .outbox }
            if space == Spaces.mail.name { return .mail }
            return nil
        }
    }

    /// The most readers waiting at once (by default).
    static let defaultLimit = 1000

    /// A reader's continuation while it waits.
    private struct Waiter {
        var topic: Topic
        var continuation: CheckedContinuation<Void, Never>
    }

    /// Generations per topic, and who waits.
    private struct State: ~Copyable {
        var generations = [UInt64](repeating: 0, count: Topic.allCases.count)
        var waiters: [Int: Waiter] = [:]
        var nextId = 0
        var admitted = 0
        var closed = false
        /// The poller waiting for a first reader.
        var idlePollers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// `State.admitted`, read without the lock on every committed step.
    private let admitted = Atomic<Int>(0)
    /// The most readers admitted at once.
    let limit: Int

    init(limit: Int = StoreWatch.defaultLimit) {
        self.limit = limit
    }

    // MARK: Readers

    /// Admits one more reader; false when `limit` readers already wait or the server is stopping.
    func admit() -> Bool {
        let pollers = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
            guard !state.closed, state.admitted < limit else { return nil }
            state.admitted += 1
            admitted.store(state.admitted, ordering: .sequentiallyConsistent)
            defer { state.idlePollers = [] }
            return state.idlePollers
        }
        guard let pollers else { return false }
        for poller in pollers { poller.resume() }
        return true
    }

    /// Lets an admitted reader go.
    func release() {
        state.withLock { state in
            state.admitted -= 1
            admitted.store(state.admitted, ordering: .sequentiallyConsistent)
        }
    }

    /// How many readers are admitted.
    var readers: Int { admitted.load(ordering: .sequentiallyConsistent) }

    /// Whether the server is stopping (waits end at once).
    var isClosed: Bool { state.withLock { $0.closed } }

    /// The generation of `topic`: it moves on with every change.
    func generation(_ topic: Topic) -> UInt64 {
        state.withLock { $0.generations[topic.rawValue] }
    }

    /// Returns once `topic` moved past generation `seen`, at `deadline`, on shutdown, or when the
    /// task is cancelled, whichever comes first.
    func wait(_ topic: Topic, after seen: UInt64, until deadline: ContinuousClock.Instant) async {
        guard deadline > .now else { return }
        await withTaskGroup(of: Void.self) { race in
            race.addTask { await self.waitForChange(topic, after: seen) }
            race.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            _ = await race.next()
            race.cancelAll()
        }
    }

    private func waitForChange(_ topic: Topic, after seen: UInt64) async {
        let id = state.withLock { state in
            defer { state.nextId += 1 }
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    guard !state.closed, state.generations[topic.rawValue] == seen, !Task.isCancelled else {
                        return true
                    }
                    state.waiters[id] = Waiter(topic: topic, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    // MARK: Changes

    /// Moves `topics` on and wakes their waiters.
    func changed(_ topics: some Sequence<Topic>) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            var moved = [Bool](repeating: false, count: Topic.allCases.count)
            for topic in topics where !moved[topic.rawValue] {
                moved[topic.rawValue] = true
                state.generations[topic.rawValue] &+= 1
            }
            let ready = state.waiters.filter { moved[$0.value.topic.rawValue] }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// What a memory store's committed step wrote: costs one atomic load while nobody waits (every
    /// token request commits a step).
    func committed(_ changes: StoreChanges) {
        guard admitted.load(ordering: .sequentiallyConsistent) > 0 else { return }
        var topics = Set(changes.cleared.compactMap(Topic.of(space:)))
        for ref in changes.writes.keys {
            if let topic = Topic.of(space: ref.space) { topics.insert(topic) }
        }
        if !topics.isEmpty { changed(topics) }
    }

    /// Ends every wait now and refuses new readers (graceful shutdown).
    func close() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.closed = true
            let waiting = state.waiters.values.map(\.continuation) + state.idlePollers
            state.waiters = [:]
            state.idlePollers = []
            return waiting
        }
        for continuation in woken { continuation.resume() }
    }

    // MARK: Pollers

    /// Returns once at least one reader is admitted (at once if one is), on shutdown, or on
    /// cancellation: a poller of a shared store reads it only while someone waits.
    func waitForReaders() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    guard state.admitted == 0, !state.closed, !Task.isCancelled else { return true }
                    state.idlePollers.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let pollers = state.withLock { state in
                defer { state.idlePollers = [] }
                return state.idlePollers
            }
            for poller in pollers { poller.resume() }
        }
    }
}
