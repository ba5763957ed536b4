#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value that only says "present" (a deleted account, relay forwarding off, a spent token).
struct Marker: Codable, Sendable, Equatable {
    var at: Date
}

/// A scenario file uploaded over HTTP, kept as sent so every replica parses the same text.
struct UploadedScenario: Codable, Sendable {
    var json: String
}
