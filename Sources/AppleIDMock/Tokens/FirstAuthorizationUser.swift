#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `user` JSON Apple sends with a user's first authorization of an app group, holding only what
/// was granted: `{"name":{"firstName":…,"lastName":…},"email":…}`.
struct FirstAuthorizationUser: Sendable, Encodable, Equatable {
    var name: PersonName?
    var email: String?

    /// The JSON names of the fields.
    private enum CodingKeys: String, CodingKey {
        case name, email
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(email, forKey: .email)
    }

    /// The JSON text, as sent in the `user` form field.
    var jsonText: String {
        (try? TokenMinter.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}
