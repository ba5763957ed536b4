import Synchronization

/// A memo shared across tasks for values that never go stale once made (a parsed key, a derived
/// identifier, a parsed upload), bounded: past `capacity` entries it starts over.
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let table = Mutex<[Key: Value]>([:])
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value remembered for `key`, if any.
    subscript(key: Key) -> Value? {
        table.withLock { $0[key] }
    }

    /// Remembers `value` for `key`.
    func insert(_ value: Value, for key: Key) {
        table.withLock { table in
            if table.count >= capacity { table.removeAll() }
            table[key] = value
        }
    }

    /// The value for `key`, made by `make` the first time.
    func value(for key: Key, make: () throws -> Value) rethrows -> Value {
        if let known = self[key] { return known }
        let value = try make()
        insert(value, for: key)
        return value
    }
}
