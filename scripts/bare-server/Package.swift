// swift-tools-version: 6.1
import PackageDescription

// The bare server of scripts/benchmark.sh: the mock's stack (Hummingbird, OpenSSL) doing nothing
// but answering, so the benchmark can show what the mock costs on top of it on the same machine.
// - hummingbird: the HTTP server the mock is built on, at the same version.
// - CBareOpenSSL (a system library: libssl-dev): RS256 signatures, as the mock makes them.
let package = Package(
    name: "bare-server",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1")
    ],
    targets: [
        .systemLibrary(name: "CBareOpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .executableTarget(
            name: "BareServer",
            dependencies: ["CBareOpenSSL", .product(name: "Hummingbird", package: "hummingbird")]
        ),
    ]
)
