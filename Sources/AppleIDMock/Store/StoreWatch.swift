import Synchronization

/// Wakes control-plane reads that wait for the journal, the outbox or the mailbox to change
/// (`waitSeconds` on `GET /__admin/journal`, `…/notifications`, `…/mail`, and journal
/// verification). Nothing polls per waiter: a memory (or SQLite) store tells the watch what each
/// committed step wrote; PostgreSQL, which replicas share, is read once per interval while anyone
/// waits (`StoreWatchService`). The number of waiters is bounded, fairly across namespaces (a share
/// each, a reserve for `default`), and shutdown wakes them all.
final class StoreWatch: Sendable {
    /// What a reader can wait on.
    enum Topic: Int, Sendable, CaseIterable {
        case journal, outbox, mail

        /// The store spaces whose changes concern the topic: those the registry says wake it.
        var spaces: [String] { Self.spacesByTopic[rawValue] }

        private static let spacesByTopic = allCases.map { topic in
            Spaces.registered.filter { $0.wakes == topic }.map(\.name)
        }

        /// The topic a space's changes concern, if any (in any namespace: waiters of one namespace
        /// woken by another's change read again and wait on).
        static func of(space stored: String) -> Topic? {
            Spaces.registeredSpace(named: stored)?.wakes
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
        /// Readers admitted for namespaces other than `default`, in all and by name.
        var admittedElsewhere = 0
        var admittedIn: [String: Int] = [:]
        var closed = false
        /// The poller waiting for a first reader.
        var idlePollers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// `State.admitted`, read without the lock on every committed step.
    private let admitted = Atomic<Int>(0)
    /// The most readers admitted at once.
    let limit: Int
    /// The most readers one namespace other than `default` may hold: a quarter of `limit`, so one
    /// namespace's waits never take every slot.
    var namespaceShare: Int { max(1, limit / 4) }
    /// The slots only `default`'s readers take: a quarter of `limit`, so the other namespaces
    /// together never starve it.
    var defaultReserve: Int { limit / 4 }

    init(limit: Int = StoreWatch.defaultLimit) {
        self.limit = limit
    }

    // MARK: Readers

    /// Why a reader was not admitted.
    enum Refusal: Error, Sendable, Equatable {
        /// `limit` readers wait.
        case full
        /// The namespaces other than `default` hold all but `default`'s reserve.
        case othersFull
        /// The namespace holds its share already.
        case namespaceShare
        /// The server is stopping.
        case closed
    }

    /// Admits one more reader for `namespace` (`nil`: `default`), unless `limit` readers wait, the
    /// namespace holds its share (`namespaceShare`), the namespaces other than `default` hold all
    /// but its reserve (`defaultReserve`), or the server is stopping.
    func admit(for namespace: String? = nil) -> Refusal? {
        let admission = state.withLock { state -> Result<[CheckedContinuation<Void, Never>], Refusal> in
            guard !state.closed else { return .failure(.closed) }
            guard state.admitted < limit else { return .failure(.full) }
            if let namespace {
                guard state.admittedIn[namespace, default: 0] < namespaceShare else {
                    return .failure(.namespaceShare)
                }
                guard state.admittedElsewhere < limit - defaultReserve else { return .failure(.othersFull) }
                state.admittedIn[namespace, default: 0] += 1
                state.admittedElsewhere += 1
            }
            state.admitted += 1
            admitted.store(state.admitted, ordering: .sequentiallyConsistent)
            defer { state.idlePollers = [] }
            return .success(state.idlePollers)
        }
        switch admission {
        case .failure(let refusal): return refusal
        case .success(let pollers):
            for poller in pollers { poller.resume() }
            return nil
        }
    }

    /// Lets a reader admitted for `namespace` go.
    func release(for namespace: String? = nil) {
        state.withLock { state in
            state.admitted -= 1
            if let namespace {
                state.admittedElsewhere -= 1
                let left = state.admittedIn[namespace, default: 1] - 1
                state.admittedIn[namespace] = left > 0 ? left : nil
            }
            admitted.store(state.admitted, ordering: .sequentiallyConsistent)
        }
    }

    /// How many readers are admitted.
    var readers: Int { admitted.load(ordering: .sequentiallyConsistent) }

    /// Whether the server is stopping (waits end at once).
    var isClosed: Bool { state.withLock { $0.closed } }

    /// How many reads wait on `topic` now.
    func waiting(_ topic: Topic) -> Int {
        state.withLock { $0.waiters.values.count { $0.topic == topic } }
    }

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
