import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing

@testable import AppleIDMock

/// Connections handled on the event loop that owns their socket, over HTTP and HTTPS.
@Suite("Loop-bound connections")
struct LoopBoundChannelTests {
    /// A request context that keeps the connection's channel.
    struct ChannelContext: RequestContext {
        var coreContext: CoreRequestContextStorage
        let channel: any Channel

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            channel = source.channel
        }
    }

    /// Answers `/where` with whether the handler runs on its connection's event loop.
    static func application(server: HTTPServerBuilder) -> some ApplicationProtocol {
        let router = Router(context: ChannelContext.self)
        router.get("where") { _, context in "\(context.channel.eventLoop.inEventLoop)" }
        return Application(
            router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test("a handler runs on its connection's event loop (Hummingbird's own HTTP/1.1 runs it elsewhere)")
    func handlerOnLoop() async throws {
        let bound = Self.application(server: .loopBoundHTTP1(configuration: .init(), tls: nil))
        try await bound.test(.live) { client in
            for _ in 0..<3 {
                let response = try await client.execute(uri: "/where", method: .get)
                #expect(String(buffer: response.body) == "true")
            }
        }
        try await Self.application(server: .http1()).test(.live) { client in
            let response = try await client.execute(uri: "/where", method: .get)
            #expect(String(buffer: response.body) == "false")
        }
    }

    @Test("over TLS too, with the bundled test certificate")
    func handlerOnLoopOverTLS() async throws {
        let folder = Fixture.keysDirectory + "/tls"
        let setup = try TLSSetup.load(
            TLSFiles(
                certificateChainPath: folder + "/appleid.apple.com.pem",
                privateKeyPath: folder + "/appleid.apple.com-key.pem"))
        let app = Self.application(server: .loopBoundHTTP1(configuration: .init(), tls: setup.configuration))
        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(folder + "/ca.pem"))
        let clientTLS = trusting
        try await app.test(.live) { client in
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: clientTLS))
            do {
                let response = try await http.execute(
                    HTTPClientRequest(url: "https://localhost:\(client.port!)/where"), timeout: .seconds(10))
                #expect(response.status == .ok)
                #expect(String(buffer: try await response.body.collect(upTo: 1024)) == "true")
                try await http.shutdown()
            } catch {
                try await http.shutdown()
                throw error
            }
        }
    }

    @Test("a job enqueued from another thread runs on the loop")
    func executorRunsOnLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let onLoop = await withTaskExecutorPreference(EventLoopTaskExecutor(loop: loop)) {
            loop.inEventLoop
        }
        #expect(onLoop)
    }

    /// A journal that notes whether each write ran on an event loop.
    final class WhereJournal: StoreJournal {
        let onLoop = Mutex<[Bool]>([])
        func write(_ changes: StoreChanges) async throws {
            onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
        }
    }

    @Test("a journaled store writes off the event loop: every step of a shared write waits for its round trips")
    func journaledStepOffLoop() async throws {
        let journal = WhereJournal()
        let store = MemoryStore(journal: journal)
        let plain = MemoryStore()
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let stepsOnLoop = try await withTaskExecutorPreference(EventLoopTaskExecutor(loop: loop)) {
            try await store.transaction { transaction in
                try await transaction.put(Spaces.relayOff, "a", Marker(at: Fixture.start), index: EntryIndex())
            }
            // Without a journal nothing waits under the lock, so the step stays on the loop.
            return try await plain.transaction { _ in MultiThreadedEventLoopGroup.currentEventLoop != nil }
        }
        #expect(journal.onLoop.withLock { $0 } == [false])
        #expect(stepsOnLoop)
    }
}
