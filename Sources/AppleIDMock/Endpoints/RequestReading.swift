import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads request bodies and parameters within a size limit, turning every malformed input into an
/// `AppleError` (never a crash or a 500).
enum RequestReading {
    /// The token of `Authorization: Bearer <token>` (the scheme in any case, the token trimmed),
    /// or `nil` when there is none.
    static func bearerToken(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return nil
        }
        let token = header.dropFirst("bearer ".count).trimmingWhitespace()
        return token.isEmpty ? nil : token
    }

    /// The largest body `/auth/*` accepts; Apple's requests are a few kilobytes at most.
    static let maximumBodySize = 64 * 1024

    /// The raw body as text, or `invalid_request` when it is too large or not UTF-8.
    static func bodyText(_ request: Request) async throws(AppleError) -> String {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodySize)
        } catch {
            throw .invalidRequest("request body over \(maximumBodySize) bytes or unreadable")
        }
        guard let text = utf8Text(buffer) else { throw .invalidRequest("request body is not UTF-8") }
        return text
    }

    /// A buffer's readable bytes as text, or `nil` if they are not valid UTF-8.
    static func utf8Text(_ buffer: ByteBuffer) -> String? {
        buffer.withUnsafeReadableBytes { String(validating: $0, as: UTF8.self) }
    }

    /// Whether the request declares a form-urlencoded body.
    static func isForm(_ request: Request) -> Bool {
        guard let type = request.headers[.contentType] else { return false }
        // Bytes, not characters: this runs on every Apple call.
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let media = type.utf8.prefix { $0 != UInt8(ascii: ";") }.drop(while: blank).reversed().drop(while: blank)
        return media.reversed().elementsEqual("application/x-www-form-urlencoded".utf8) { byte, expected in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 == expected : byte == expected
        }
    }

    /// Parses form text, mapping duplicates and bad encoding to `invalid_request`.
    static func form(_ text: String) throws(AppleError) -> FormParameters {
        let form: FormParameters
        do {
            form = try FormParameters(encoded: text)
        } catch {
            throw .invalidRequest("the form is not valid percent-encoded UTF-8")
        }
        return try refusingDuplicates(form)
    }

    /// The query string's parameters.
    static func query(_ request: Request) throws(AppleError) -> FormParameters {
        try form(request.uri.query ?? "")
    }

    /// The query string's parameters, as already read for this request if they were.
    static func query(_ request: Request, context: WorldRequestContext) throws(AppleError) -> FormParameters {
        guard let parsed = context.parsedQuery else { return try query(request) }
        return try refusingDuplicates(parsed)
    }

    /// The form body's parameters (the caller has checked the content type), as already read for
    /// this request if they were.
    static func bodyForm(_ request: Request, context: WorldRequestContext) async throws(AppleError) -> FormParameters {
        if context.bodyUnreadable {
            throw .invalidRequest("request body over \(maximumBodySize) bytes or unreadable")
        }
        guard let parsed = context.parsedBody else { return try form(try await bodyText(request)) }
        return try refusingDuplicates(parsed)
    }

    /// `form`, unless a parameter appears twice (`invalid_request`).
    private static func refusingDuplicates(_ form: FormParameters) throws(AppleError) -> FormParameters {
        if let duplicate = form.firstDuplicate {
            throw .invalidRequest("parameter \(duplicate) was sent more than once")
        }
        return form
    }

    /// The body of a token or revoke request: must be a form (else the configured error), no duplicates.
    static func tokenForm(_ request: Request, context: WorldRequestContext, settings: MockSettings)
        async throws(AppleError)
        -> FormParameters
    {
        guard isForm(request) else {
            throw AppleError(
                settings.wrongContentTypeError.rawValue,
                reason:
                    "Content-Type must be application/x-www-form-urlencoded, found \(request.headers[.contentType] ?? "none")"
            )
        }
        return try await bodyForm(request, context: context)
    }
}

extension FormParameters {
    /// `nonEmpty`, with duplicates as `invalid_request` (callers have already refused duplicates).
    func field(_ name: String, allowEmpty: Bool = false) throws(AppleError) -> String? {
        do {
            return allowEmpty ? try value(name) : try nonEmpty(name)
        } catch {
            throw .invalidRequest("parameter \(name) was sent more than once")
        }
    }
}
