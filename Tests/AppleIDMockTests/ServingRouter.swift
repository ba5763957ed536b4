import Hummingbird
import Logging

/// Test servers in this process (notification receivers): `router` served on `port` of 127.0.0.1
/// (0: a free one) while `body` runs with the port bound, then stopped.
enum ServingRouter {
    static func serve<T: Sendable>(
        _ router: Router<BasicRequestContext>, port: Int = 0, label: String,
        _ body: @Sendable (_ port: Int) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { listening.yield($0.localAddress?.port ?? port) }, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { listening.finish() }
                try await app.runService(gracefulShutdownSignals: [])
            }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let bound = await iterator.next() else {
                try await group.next()
                throw CancellationError()
            }
            return try await body(bound)
        }
    }
}
