/// The body of `POST /__admin/mail/{id}/reply`: the reply's text (at most 100000 bytes) and,
/// optionally, its subject (default `Re: <original>`).
struct MailReplyRequest: Sendable {
    var text: String
    var subject: String?

    /// Reads the body; refuses it naming each bad member.
    init(_ body: JSONValue) throws {
        var reader = JSONReader()
        var text: String?
        if let members = reader.object(body, at: .root, allowed: ["text", "subject"]) {
            if let raw = reader.required(members, "text", at: .root) {
                text = reader.string(raw, at: .root.member("text"))
                if let value = text, value.utf8.count > 100_000 {
                    reader.report(.root.member("text"), "at most 100000 bytes")
                }
            }
            if let raw = members["subject"] { subject = reader.string(raw, at: .root.member("subject")) }
        }
        try reader.refuseBodyIfInvalid()
        self.text = text ?? ""
    }
}
