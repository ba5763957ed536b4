import Foundation
import Logging
import PostgresNIO
import Testing

@testable import AppleIDMock

/// The stores every conformance test runs against, and how to get a fresh one of each kind.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A fresh, empty store of this kind, open while `body` runs (PostgreSQL gets its own database).
    func withFreshStore<T: Sendable>(_ body: (any StateStore) async throws -> T) async throws -> T {
        switch self {
        case .memory:
            return try await body(MemoryStore())
        case .sqlite:
            let path = TestPaths.temporaryFile("state.sqlite")
            let opened = try await StoreOpener.open(.sqlite(path: path), logger: TestPostgres.quietLogger)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let result = try await body(opened.store)
            await opened.close()
            return result
        case .postgres:
            let url = try await TestPostgres.freshDatabase()
            return try await TestPostgres.withStore(url: url, body)
        }
    }
}

/// Temporary files for tests.
enum TestPaths {
    /// A path in a new temporary folder.
    static func temporaryFile(_ name: String) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "apple-id-mock-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name).path
    }
}

/// The PostgreSQL the tests use: `APPLE_ID_MOCK_TEST_POSTGRES_URL` names a server where the tests may
/// create databases (`.ci/run` starts a private one). Without it the PostgreSQL tests are skipped,
/// except with `CI=true`, where they fail.
enum TestPostgres {
    static let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The server's URL, if one is configured.
    static var url: String? {
        ProcessInfo.processInfo.environment["APPLE_ID_MOCK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether PostgreSQL tests run (CI requires them).
    static var isAvailable: Bool {
        url != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// The store kinds to test here: PostgreSQL only where it is available.
    static var storeKinds: [StoreKind] {
        isAvailable ? StoreKind.allCases : [.memory, .sqlite]
    }

    /// Creates an empty database on the test server and returns its URL.
    static func freshDatabase() async throws -> String {
        guard let url else {
            Issue.record("CI=true but APPLE_ID_MOCK_TEST_POSTGRES_URL is not set: .ci/run starts PostgreSQL")
            throw CancellationError()
        }
        guard case .postgres(let location) = try StoreLocation(parsing: url) else {
            throw StoreOpeningError(location: url, cause: "not a postgres URL")
        }
        let name = "test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))"
        try await run("CREATE DATABASE \(name)", in: url)
        return "postgres://\(location.user):\(location.password ?? "")@\(location.host):\(location.port)/\(name)"
    }

    /// Runs `sql` on its own connection to the database at `url` (a test's hand on the tables);
    /// returns the first column of its rows, which must be text.
    @discardableResult
    static func run(_ sql: String, in url: String) async throws -> [String] {
        guard case .postgres(let location) = try StoreLocation(parsing: url) else {
            throw StoreOpeningError(location: url, cause: "not a postgres URL")
        }
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: .disable), id: 1, logger: quietLogger)
        do {
            var values: [String] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: quietLogger) {
                values.append(try row.decode(String.self))
            }
            try await connection.close()
            return values
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Two stores on one fresh database, as two replicas, both sharing statements, open while `body` runs.
    static func withReplicaPair<T: Sendable>(_ body: (any StateStore, any StateStore) async throws -> T)
        async throws -> T
    {
        let url = try await freshDatabase()
        return try await withStore(url: url) { first in
            try await withStore(url: url) { second in
                try await StoreConcurrencyTests.waitUntilSharing(first)
                try await StoreConcurrencyTests.waitUntilSharing(second)
                return try await body(first, second)
            }
        }
    }

    /// Opens the store at `url`, runs its pool while `body` runs, then stops it. Its steps may wait
    /// 30 s, not the server's 5: these tests check the store's rules, and under a full parallel run
    /// (servers, a browser and PostgreSQL on two cores) a step once waited past 5 s.
    static func withStore<T: Sendable>(url: String, _ body: (any StateStore) async throws -> T) async throws -> T {
        let opened = try await StoreOpener.open(
            try StoreLocation(parsing: url), postgresStepTimeout: .seconds(30), logger: quietLogger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for service in opened.services { group.addTask { try await service.run() } }
            defer { group.cancelAll() }
            return try await body(opened.store)
        }
    }
}

extension Session {
    /// Authorizes maria for the app group `example` (her consent, or the one she has) and stores a
    /// new code for `com.example.web` on it, issued `now`; returns the code.
    func storeTestCode(now: Date) async throws -> String {
        let (consent, _) = try await authorize(
            userKey: "maria", appGroupId: "example", scopes: ["email"], hidesEmail: false, now: now)
        let code = OpaqueToken.make(.code)
        try await store(
            code: AuthorizationCodeRecord(
                code: code, clientId: "com.example.web", appGroupId: "example", userKey: "maria",
                redirectUri: "https://r", nonce: nil, codeChallenge: nil, codeChallengeMethod: nil, issuedAt: now,
                expiresAt: now.addingTimeInterval(300), authTime: now, consentGeneration: consent.generation,
                redeemedAt: nil))
        return code
    }
}
