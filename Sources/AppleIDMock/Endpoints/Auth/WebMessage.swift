#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The message Apple's popup page posts to `window.opener` for `response_mode=web_message`
/// (reference §15): a JSON *string*, `{"method":"oauthDone","data":{…}}`, where `data` holds
/// `authorization` (`code`, `id_token`, `state`) and, on the first authorization, `user`; or
/// `error` when the user cancelled. Sign in with Apple JS `JSON.parse`s it.
enum WebMessage {
    /// The message for the result `fields` (the same fields `form_post` would post).
    static func text(for fields: [(String, String)]) -> String {
        let value = { (name: String) in fields.first { $0.0 == name }?.1 }
        if let error = value("error") {
            return #"{"method":"oauthDone","data":{"error":\#(quoted(error))}}"#
        }
        let authorization = ["code", "id_token", "state"].compactMap { name in
            value(name).map { "\(quoted(name)):\(quoted($0))" }
        }
        var data = #""authorization":{\#(authorization.joined(separator: ","))}"#
        // `user` arrives as form_post's JSON text; here it is an object inside the message.
        if let user = value("user") { data += #","user":\#(user)"# }
        return #"{"method":"oauthDone","data":{\#(data)}}"#
    }

    /// `text` as a JSON string literal.
    private static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(text)).flatMap { String(data: $0, encoding: .utf8) } ?? "\"\""
    }
}
