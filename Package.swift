// swift-tools-version: 6.1
import PackageDescription

// Each dependency is here for one feature:
// - hummingbird: the HTTP server; HummingbirdTesting runs the mock in-process for the
//   `AppleIDMockTesting` kit (on a free port or straight to the router) and for our own tests.
// - jwt-kit: verifies ES256 `client_secret` JWTs and mints them for the `client-secret` command;
//   the tests verify our id_tokens with its `AppleIdentityToken`, as a relying party would.
// - swift-crypto: SHA-256 / HMAC for at_hash, c_hash, PKCE and the deterministic identifiers;
//   `CryptoExtras` for RS256 signing of id_tokens with Apple's exact header (jwt-kit always adds `typ`).
// - swift-argument-parser: the `apple-id-mock` command line (serve, validate, client-secret).
// - swift-log: `import Logging` (Hummingbird does not re-export it).
// - async-http-client: delivers server-to-server notifications to each app group's URL.
// - swift-service-lifecycle: the background services (notification delivery, housekeeping, the
//   PostgreSQL pool) that stop with the server.
// - swift-collections: `Deque` for the store's lock queue, `Heap` for the expiry index of the memory store.
// - sqlite-nio: the `sqlite:PATH` state store (SQLite built in, so no system library is needed).
// - postgres-nio: the `postgres://` state store shared by replicas.
// - swift-nio, swift-nio-extras (NIOHTTPTypes), swift-http-types: already under Hummingbird; named
//   here because the mock adds channel handlers (answering `Expect: 100-continue`, holding flushes
//   back while the loop has work queued, with a loop's queue in NIOPosix's `ThreadSpecificVariable`)
//   and closes a connection without an answer for the "drop" fault.
// - HummingbirdTLS (with swift-nio-ssl, already under async-http-client): `--tls`, serving HTTPS as
//   appleid.apple.com with the test CA of keys/tls/ or your own certificate.
// - COpenSSL (a system library: libssl-dev / libcrypto 3): RS256 signatures for id_tokens and
//   notifications, several times faster than swift-crypto's portable RSA (see scripts/benchmark.sh).
// - swift-metrics + swift-prometheus: `GET /metrics` in Prometheus's text format (Apple calls by
//   endpoint, grant type and outcome, issuance, notifications, mail, store step latency). Counters
//   and histograms are lock-free atomics in swift-prometheus, so the token path pays no lock of ours.
// - CICUData (a few lines of C, no dependency): in the container image's build only, defines ICU's
//   data symbol with a subset of Foundation's 34 MB ICU data (see Sources/CICUData/icu_data.c).
// - swift-certificates (`X509`) and swift-asn1 (its DER and PEM writer), both already under jwt-kit:
//   the self-signed certificate of the attacker's key that backend conformance runs send in `x5c`
//   and serve as PEM for `x5u` (DER written by hand would be a second, untested ASN.1 encoder).
// - CMallocTuning (a few lines of C, no dependency): `mallopt` is not in Swift's Glibc module; `serve`
//   fixes glibc's mmap threshold so that buffers the store's tables outgrow go back to the system.
let package = Package(
    name: "apple-id-mock",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AppleIDMock", targets: ["AppleIDMock"]),
        .library(name: "AppleIDMockTesting", targets: ["AppleIDMockTesting"]),
        .executable(name: "apple-id-mock", targets: ["AppleIDMockCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.15.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.1.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .target(name: "CMallocTuning"),
        .target(name: "CICUData"),
        .target(
            name: "AppleIDMock",
            dependencies: [
                "COpenSSL",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Resources/openapi.json"), .copy("Resources/dashboard"), .copy("Resources/jsapi")],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        .executableTarget(
            name: "AppleIDMockCLI",
            dependencies: [
                "AppleIDMock",
                "CICUData",
                "CMallocTuning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // The `conformance` command's calls to a server (URLSession would link libcurl).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "AppleIDMockTesting",
            dependencies: [
                "AppleIDMock",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "AppleIDMockTestingTests",
            dependencies: [
                "AppleIDMockTesting",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "AppleIDMockTests",
            dependencies: [
                "AppleIDMock",
                "CMallocTuning",
                "AppleIDMockTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                // Reads the attacker's certificate of conformance runs as a backend would.
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
    ]
)
