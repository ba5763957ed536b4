import Synchronization

/// A value whose writes `StoreWatch` files by the keys it carries (a journal entry: its user, `sub`
/// and client), so a reader waiting for one key is asked only about values that carry it.
protocol WatchedValue: Sendable {
    /// The keys a reader may wait for (`StoreWatch.Interest.key`).
    var watchKeys: [String] { get }
}

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

    /// What a waiting read waits for: a topic, in one namespace's copy of its spaces or in every
    /// namespace's, and optionally only values it could count (a journal read's filters), so a write
    /// that cannot satisfy it leaves it asleep.
    struct Interest: Sendable {
        var topic: Topic
        /// The namespace whose writes concern the reader (`nil`: the default namespace).
        var namespace: String?
        /// Whether every namespace's writes concern the reader (`namespace=*`).
        var everyNamespace = false
        /// Whether a value written to the topic's spaces could satisfy the reader (`nil`: any change
        /// could). Deletions do not wake a reader that has this; a space emptied wakes every reader.
        var accepts: (@Sendable (any Sendable) -> Bool)?
        /// A key every value it accepts carries (`WatchedValue.watchKeys`): only those values are
        /// asked, so readers waiting for one user's entries cost nothing while others' are written.
        var key: String?

        init(
            _ topic: Topic, in namespace: String? = nil, everyNamespace: Bool = false,
            accepts: (@Sendable (any Sendable) -> Bool)? = nil, key: String? = nil
        ) {
            self.topic = topic
            self.namespace = namespace
            self.everyNamespace = everyNamespace
            self.accepts = accepts
            self.key = key
        }

        /// Whether writes to `namespace`'s copy of the topic's spaces concern the reader.
        func concerns(_ namespace: String?) -> Bool { everyNamespace || self.namespace == namespace }
    }

    /// A subscribed reader: what it waits for, what came since it last woke (a change of unknown
    /// effect, or how many values its filter accepted), how many accepted values it needs to read
    /// again, and its continuation while it waits.
    private struct Subscriber {
        var interest: Interest
        /// A change came whose effect on the reader is unknown (a shared store's poll, a space
        /// emptied, any change for a reader without a filter).
        var forced = false
        /// Values its filter accepted since it last woke.
        var accepted = 0
        /// How many accepted values could satisfy it (`nil`: any one might).
        var needed: Int?
        var continuation: CheckedContinuation<Void, Never>?

        /// Whether what came since it last woke may satisfy it.
        var isDue: Bool { forced || (needed.map { accepted >= $0 } ?? (accepted > 0)) }

        /// Starts counting afresh (it wakes now).
        mutating func woke() {
            forced = false
            accepted = 0
        }
    }

    /// Who waits, by topic, and the admission counts.
    private struct State: ~Copyable {
        var subscribers = [[Int: Subscriber]](repeating: [:], count: Topic.allCases.count)
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

    /// How many reads wait on `topic` now (subscribed and asleep).
    func waiting(_ topic: Topic) -> Int {
        state.withLock { $0.subscribers[topic.rawValue].values.count { $0.continuation != nil } }
    }

    /// A reader's place in the watch, from `subscribe` to `unsubscribe`.
    struct Subscription: Sendable, Hashable {
        fileprivate let topic: Topic
        fileprivate let id: Int
    }

    /// Subscribes a reader to `interest` before its first read: a change it cares about from now on
    /// is never missed (`next` returns at once for one that came while it read).
    func subscribe(_ interest: Interest) -> Subscription {
        state.withLock { state in
            defer { state.nextId += 1 }
            state.subscribers[interest.topic.rawValue][state.nextId] = Subscriber(interest: interest)
            return Subscription(topic: interest.topic, id: state.nextId)
        }
    }

    /// Ends a subscription (resuming its wait, if one is under way).
    func unsubscribe(_ subscription: Subscription) {
        state.withLock { $0.subscribers[subscription.topic.rawValue].removeValue(forKey: subscription.id) }?
            .continuation?.resume()
    }

    /// Returns once what came since it last returned may satisfy the subscription (at once if it
    /// came already): a change of unknown effect, or with a filter, `needing` values it accepted
    /// (`nil`: one); at `deadline`, on shutdown, or when the task is cancelled, whichever is first.
    /// A journal read short of its `minCount` by 5 sleeps through entries until 5 it would count
    /// were written.
    func next(_ subscription: Subscription, needing: Int? = nil, until deadline: ContinuousClock.Instant) async {
        guard deadline > .now else { return }
        await withTaskGroup(of: Void.self) { race in
            race.addTask { await self.sleep(subscription, needing: needing) }
            race.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            _ = await race.next()
            race.cancelAll()
        }
    }

    private func sleep(_ subscription: Subscription, needing: Int?) async {
        let topic = subscription.topic.rawValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    guard !state.closed, !Task.isCancelled, var subscriber = state.subscribers[topic][subscription.id]
                    else { return true }
                    subscriber.needed = needing
                    if subscriber.isDue {
                        subscriber.woke()
                        state.subscribers[topic][subscription.id] = subscriber
                        return true
                    }
                    subscriber.continuation = continuation
                    state.subscribers[topic][subscription.id] = subscriber
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.subscribers[topic][subscription.id]?.continuation = nil }
                return state.subscribers[topic][subscription.id]?.continuation
            }?.resume()
        }
    }

    // MARK: Changes

    /// Wakes every reader of `topics`, whatever it waits for (a shared store's poller sees that a
    /// topic moved, not what was written).
    func changed(_ topics: some Sequence<Topic>) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            var woken: [CheckedContinuation<Void, Never>] = []
            for topic in Set(topics) {
                for id in Array(state.subscribers[topic.rawValue].keys) {
                    if let continuation = Self.fire(&state.subscribers[topic.rawValue][id]!) {
                        woken.append(continuation)
                    }
                }
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }

    /// Notes for `subscriber` a change of unknown effect (`accepted: nil`) or `accepted` values its
    /// filter accepted; its continuation, if it slept and may now be satisfied.
    private static func fire(_ subscriber: inout Subscriber, accepted: Int? = nil) -> CheckedContinuation<Void, Never>?
    {
        if let accepted { subscriber.accepted += accepted } else { subscriber.forced = true }
        guard subscriber.isDue, let continuation = subscriber.continuation else { return nil }
        subscriber.continuation = nil
        subscriber.woke()
        return continuation
    }

    /// What a memory store's committed step wrote: costs one atomic load while nobody waits (every
    /// token request commits a step). Wakes only the readers a change concerns: of its topic, in its
    /// namespace, and, for a reader with a filter, once as many values it accepts were written as
    /// it needs (or its space was emptied). The filters run outside the lock.
    func committed(_ changes: StoreChanges) {
        guard admitted.load(ordering: .sequentiallyConsistent) > 0 else { return }
        /// What the step did to one namespace's copy of a topic's spaces.
        struct Touched {
            var cleared = false
            var deleted = false
            var values: [any Sendable] = []
            /// The values by each key they carry (`WatchedValue`), asked once per value.
            var byKey: [String: [any Sendable]] = [:]
        }
        var touched: [TouchKey: Touched] = [:]
        for stored in changes.cleared {
            let name = StoredSpaceName(parsing: stored)
            guard let topic = Topic.of(space: name.space) else { continue }
            touched[TouchKey(topic: topic, namespace: name.namespace), default: Touched()].cleared = true
        }
        for (ref, entry) in changes.writes {
            guard let topic = Topic.of(space: String(StoredSpaceName.spaceName(in: ref.space))) else { continue }
            let key = TouchKey(topic: topic, namespace: StoredSpaceName(parsing: ref.space).namespace)
            if let entry {
                touched[key, default: Touched()].values.append(entry.value)
                for watchKey in (entry.value as? any WatchedValue)?.watchKeys ?? [] {
                    touched[key, default: Touched()].byKey[watchKey, default: []].append(entry.value)
                }
            } else {
                touched[key, default: Touched()].deleted = true
            }
        }
        guard !touched.isEmpty else { return }
        // Who to wake without asking, and whose filter to ask (with the values it may accept).
        let (woken, toAsk) = state.withLock {
            state -> ([CheckedContinuation<Void, Never>], [(Subscription, Interest, [any Sendable])]) in
            var woken: [CheckedContinuation<Void, Never>] = []
            var toAsk: [(Subscription, Interest, [any Sendable])] = []
            for topic in Set(touched.keys.map(\.topic)) {
                let changes = touched.filter { $0.key.topic == topic }
                for id in Array(state.subscribers[topic.rawValue].keys) {
                    let interest = state.subscribers[topic.rawValue][id]!.interest
                    let concerning = changes.filter { interest.concerns($0.key.namespace) }.map(\.value)
                    guard !concerning.isEmpty else { continue }
                    let wakes =
                        concerning.contains { $0.cleared }
                        || (interest.accepts == nil && concerning.contains { $0.deleted || !$0.values.isEmpty })
                    if wakes {
                        if let continuation = Self.fire(&state.subscribers[topic.rawValue][id]!) {
                            woken.append(continuation)
                        }
                    } else if interest.accepts != nil {
                        let values =
                            if let key = interest.key { concerning.flatMap { $0.byKey[key] ?? [] } } else {
                                concerning.flatMap(\.values)
                            }
                        if !values.isEmpty { toAsk.append((Subscription(topic: topic, id: id), interest, values)) }
                    }
                }
            }
            return (woken, toAsk)
        }
        for continuation in woken { continuation.resume() }
        let accepted = toAsk.compactMap { subscription, interest, values -> (Subscription, Int)? in
            guard let accepts = interest.accepts else { return (subscription, values.count) }
            let count = values.count(where: accepts)
            return count > 0 ? (subscription, count) : nil
        }
        guard !accepted.isEmpty else { return }
        let more = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            accepted.compactMap { subscription, count in
                guard state.subscribers[subscription.topic.rawValue][subscription.id] != nil else { return nil }
                return Self.fire(&state.subscribers[subscription.topic.rawValue][subscription.id]!, accepted: count)
            }
        }
        for continuation in more { continuation.resume() }
    }

    /// A topic in one namespace's copy of its spaces (`nil`: the default namespace's).
    private struct TouchKey: Hashable {
        var topic: Topic
        var namespace: String?
    }

    /// Ends every wait now and refuses new readers (graceful shutdown).
    func close() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.closed = true
            var waiting = state.idlePollers
            for topic in state.subscribers.indices {
                for id in Array(state.subscribers[topic].keys) {
                    if let continuation = state.subscribers[topic][id]?.continuation { waiting.append(continuation) }
                    state.subscribers[topic][id]?.continuation = nil
                }
            }
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
