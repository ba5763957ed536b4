import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` as soon as the request's headers arrive: `100 Continue`, so a
/// client holding back a large body (curl does above 1 MB) sends it at once instead of waiting; or,
/// when its `Content-Length` is over the limit of the route it names (64 KiB on `/auth/*`, 1 MiB on
/// `/__admin/*`), `413` at once and the connection closed, so the body is never sent.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Whether the parts of a refused request are being dropped (the connection is closing).
    private var refusing = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusing else { return }
        if case .head(let head) = unwrapInboundIn(data),
            head.headerFields[.expect]?.lowercased() == "100-continue"
        {
            if let refusal = Self.refusal(for: head) {
                refusing = true
                context.write(wrapOutboundOut(.head(refusal.head)), promise: nil)
                context.write(wrapOutboundOut(.body(refusal.body)), promise: nil)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
                return
            }
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }

    /// The `413` for a request whose declared body is over its route's limit, or `nil`.
    static func refusal(for head: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer)? {
        guard let length = head.headerFields[.contentLength].flatMap(Int.init) else { return nil }
        var answer: ErrorAnswer
        switch RouteGroup(path: head.path?.split(separator: "?", maxSplits: 1).first ?? "") {
        case .apple where length > RequestReading.maximumBodySize:
            // Apple's vocabulary: the request is malformed.
            answer = AppleErrorMiddleware.answer(AppleError("invalid_request"), status: .contentTooLarge)
            answer.headers[.server] = AppleServerHeaderMiddleware.server
        case .controlPlane where length > AdminBody.maximumSize:
            answer = AdminErrorMiddleware.answer(for: .tooLarge(limit: AdminBody.maximumSize))
        default:
            return nil
        }
        answer.headers[.contentLength] = String(answer.body.readableBytes)
        answer.headers[.connection] = "close"
        return (HTTPResponse(status: answer.status, headerFields: answer.headers), answer.body)
    }
}
