#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The claims of a server-to-server notification JWT (reference §9). `events` is a JSON **string**,
/// as in real payloads, not an object as the documentation shows.
struct NotificationClaims: Codable, Sendable {
    var iss = "https://appleid.apple.com"
    var aud: String
    var iat: Int
    var exp: Int
    var jti: String
    var events: String

    /// The decoded `events` value.
    struct Event: Encodable, Sendable {
        var type: String
        var sub: String
        var eventTime: Int64
        var email: String?
        var isPrivateEmail: String?

        /// The JSON names of the fields.
        enum CodingKeys: String, CodingKey {
            case type, sub, email
            case eventTime = "event_time"
            case isPrivateEmail = "is_private_email"
        }
    }

    /// Claims for `draft`, addressed to the group's primary App ID, issued at `now` on the mock's clock.
    init(draft: NotificationDraft, audience: String, now: Date, settings: MockSettings) {
        let type = draft.kind.notificationType(settings)
        let seconds = draft.eventTime.timeIntervalSince1970
        let event = Event(
            type: type, sub: draft.sub,
            eventTime: settings.notificationEventTimeUnit == .milliseconds ? Int64(seconds * 1000) : Int64(seconds),
            email: draft.email, isPrivateEmail: draft.email == nil ? nil : "true")
        aud = audience
        iat = Int(now.timeIntervalSince1970)
        exp = iat + 86_400
        jti = Self.randomJTI()
        events = (try? TokenMinter.encode(event)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }

    /// 22 base64url characters, as observed.
    static func randomJTI() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0..<22).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
