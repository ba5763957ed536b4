import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the responses the endpoints send: Apple's JSON (with its headers), HTML pages, redirects.
enum Responses {
    private static let prettyEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// JSON as Apple's token endpoint sends it: `application/json;charset=UTF-8`, `no-store`.
    static func appleJSON(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        appleJSON(body: encodedJSON(value), status: status)
    }

    /// The same for the token path's own types, written without the encoder (the same bytes).
    static func appleJSON(_ value: some AppleJSONObject, status: HTTPResponse.Status = .ok) -> Response {
        appleJSON(body: ByteBuffer(bytes: value.appleJSON), status: status)
    }

    /// A value encoded as Apple's JSON, for bodies worth computing once.
    static func encodedJSON(_ value: some Encodable) -> ByteBuffer {
        ByteBuffer(bytes: (try? TokenMinter.encode(value)) ?? Data("{}".utf8))
    }

    /// Already encoded JSON with Apple's headers.
    static func appleJSON(body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: appleJSONHeaders, body: .init(byteBuffer: body))
    }

    /// The headers of every answer in Apple's JSON, built once.
    static let appleJSONHeaders: HTTPFields = [
        .contentType: "application/json;charset=UTF-8", .cacheControl: "no-store", .init("Pragma")!: "no-cache",
    ]

    /// Pretty JSON for the control plane.
    static func adminJSON(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: adminJSONHeaders, body: .init(byteBuffer: adminJSONBody(value)))
    }

    /// The control plane's pretty JSON, as bytes.
    static func adminJSONBody(_ value: some Encodable) -> ByteBuffer {
        ByteBuffer(bytes: ((try? prettyEncoder.encode(value)) ?? Data("{}".utf8)) + Data("\n".utf8))
    }

    /// The headers of the control plane's JSON answers.
    static let adminJSONHeaders: HTTPFields = [
        .contentType: "application/json; charset=utf-8", .cacheControl: "no-store",
    ]

    /// An HTML page.
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A `302 Found` to `location`.
    static func redirect(to location: String) -> Response {
        Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// An empty `200`, as `/auth/revoke` answers.
    static func emptyOK() -> Response {
        Response(status: .ok, headers: [.cacheControl: "no-store", .contentLength: "0"])
    }
}
