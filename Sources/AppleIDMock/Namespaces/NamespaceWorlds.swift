import Synchronization

/// The worlds (`MockState`) of the namespaces this process opened, by name: each opened once,
/// beside the default namespace's and sharing its store, catalog, clock and caches.
final class NamespaceWorlds: Sendable {
    /// The default namespace's world, which the others are opened beside.
    let home: MockState
    private let opened = Mutex<[String: MockState]>([:])

    init(home: MockState) {
        self.home = home
    }

    /// The world of the namespace `name` (not the default), opened on first use.
    func world(_ name: String) -> MockState {
        opened.withLock { opened in
            if let world = opened[name] { return world }
            let world = home.sibling(NamespaceScope(name: name))
            opened[name] = world
            return world
        }
    }

    /// The world of `name` if this process opened it.
    func openedWorld(_ name: String) -> MockState? {
        opened.withLock { $0[name] }
    }

    /// The worlds opened here, the default first.
    var all: [MockState] {
        [home] + opened.withLock { $0.values.sorted { $0.scope.name < $1.scope.name } }
    }

    /// Closes the worlds of namespaces not among `names`.
    func keep(only names: Set<String>) {
        opened.withLock { opened in opened = opened.filter { names.contains($0.key) } }
    }

    /// Closes the world of `name`.
    func close(_ name: String) {
        _ = opened.withLock { $0.removeValue(forKey: name) }
    }
}
