import Foundation
import Testing

/// SIGTERM against a real server process while a notification delivery hangs on its receiver: the
/// server does not wait for the delivery, and exits within a second or so, on every kind of store.
@Suite("Shutdown during a delivery", .timeLimit(.minutes(3)), .tags(.live))
struct ShutdownLiveTests {
    @Test("SIGTERM stops the server within 2.5 s while a receiver hangs", arguments: TestPostgres.storeKinds)
    func sigtermWhileReceiverHangs(store: StoreKind) async throws {
        let inbox = NotificationInbox(hangFirst: .max)
        try await inbox.serve { port in
            try await ChildServers.with { children in
                let server = try await children.start(state: try await store.freshStateArgument(in: children))
                let client = server.client
                #expect(
                    try await client.activateScenario(
                        notifying: "http://127.0.0.1:\(port)/notify",
                        settings: #"{"notificationTimeoutMilliseconds": 30000}"#
                    ).status == 200)
                #expect(try await client.nativeAuthorize("maria").status == 200)
                #expect(
                    try await client.json("/__admin/events", #"{"type":"account-delete","user":"maria"}"#).status
                        == 200)
                #expect(await inbox.waitForArrivals(1).count == 1)
                #expect(try await client.notifications().first?["status"] as? String == "delivering")

                server.terminate()
                let took = await server.waitForExit(seconds: 10)
                #expect(
                    took.map { $0 < .milliseconds(2500) } == true,
                    "took \(took.map(\.description) ?? "too long: it still runs")")
                #expect(server.ending.isNormalAfterSIGTERM, "\(server.ending); stderr:\n\(server.stderr)")
            }
        }
    }
}

extension StoreKind {
    /// A `--state` value naming a fresh, empty store of this kind (an SQLite file among `children`'s).
    func freshStateArgument(in children: ChildServers) async throws -> String {
        switch self {
        case .memory: "memory"
        case .sqlite: "sqlite:" + children.file("state.sqlite")
        case .postgres: try await TestPostgres.freshDatabase()
        }
    }
}
