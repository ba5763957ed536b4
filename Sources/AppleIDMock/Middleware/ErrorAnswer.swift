import Hummingbird
import NIOCore

/// A refusal rendered: status, headers and body. The two error middlewares' pure renderers make
/// it; a handler answers with `response`, and the transport's early refusals (`ExpectContinueHandler`),
/// which run before the router, write the same bytes themselves.
struct ErrorAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    /// The answer as a router response.
    var response: Response {
        Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}
