#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Fills a request template's placeholders (`{{identityToken}}`, …) for one case. In a JSON body a
/// placeholder inside quotes gets its value escaped for a JSON string, and one standing alone gets
/// a JSON value (`{{user}}` the first authorization's object, the others quoted strings, `null` when
/// the case has none); in a form body each value is percent-encoded; elsewhere it is put as it is.
enum ConformanceTemplate {
    /// How the body is encoded, from its `Content-Type`.
    enum Encoding: Sendable {
        case json, form, text

        init(contentType: String?) {
            let type = (contentType ?? "").lowercased()
            if type.contains("json") {
                self = .json
            } else if type.contains("x-www-form-urlencoded") {
                self = .form
            } else {
                self = .text
            }
        }
    }

    /// The names of the placeholders in `template`, in order.
    static func placeholders(in template: String) -> [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            names.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return names
    }

    /// `template` with each placeholder filled from `values` (a missing value is empty, or `null`
    /// standing alone in JSON); `user` is JSON text.
    static func fill(_ template: String, values: [String: String], encoding: Encoding) -> String {
        var output = ""
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            let before = rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close.lowerBound])
            let after = rest[close.upperBound...]
            output += before
            let value = values[name]
            switch encoding {
            case .json:
                let quoted = before.last == "\"" && after.first == "\""
                if quoted {
                    output += escaped(value ?? "")
                } else if let value {
                    output += name == "user" ? value : "\"" + escaped(value) + "\""
                } else {
                    output += "null"
                }
            case .form: output += FormParameters.encodeComponent(value ?? "")
            case .text: output += value ?? ""
            }
            rest = after
        }
        return output + rest
    }

    /// `text` escaped for the inside of a JSON string.
    static func escaped(_ text: String) -> String {
        guard let data = try? TokenMinter.encode(text), let quoted = String(data: data, encoding: .utf8) else {
            return ""
        }
        return String(quoted.dropFirst().dropLast())
    }
}
