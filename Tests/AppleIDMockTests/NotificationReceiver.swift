import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore

/// A backend's notification endpoint for tests: records every `{"payload": …}` it receives and can
/// fail the first N deliveries with 503, like a receiver that is down for a while.
actor NotificationInbox {
    private(set) var payloads: [String] = []
    private(set) var contentTypes: [String] = []
    private var failuresLeft: Int

    init(failFirst: Int = 0) {
        failuresLeft = failFirst
    }

    /// Handles one delivery; returns the HTTP status to answer.
    func receive(body: Data, contentType: String?) -> HTTPResponse.Status {
        if failuresLeft > 0 {
            failuresLeft -= 1
            return .serviceUnavailable
        }
        contentTypes.append(contentType ?? "")
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: String],
            let payload = object["payload"]
        {
            payloads.append(payload)
        }
        return .ok
    }

    /// Waits (up to `seconds`) until `count` payloads arrived.
    func waitFor(_ count: Int, seconds: Double = 10) async -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while payloads.count < count && Date() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return payloads
    }

    /// The receiver application, to run live on a free port.
    nonisolated func application() -> some ApplicationProtocol {
        let router = Router()
        router.post("/notify") { request, _ -> Response in
            var buffer = try await request.body.collect(upTo: 1 << 20)
            let data = Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
            let status = await self.receive(body: data, contentType: request.headers[.contentType])
            return Response(status: status)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }
}
