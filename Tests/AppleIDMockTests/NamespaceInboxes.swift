import Foundation
import Hummingbird
import Logging
import NIOCore

/// One backend notification endpoint per namespace on one receiver: `POST /notify/{name}` keeps
/// the payload for `name`, so a test sees which namespace's notifications reached which endpoint.
actor NamespaceInboxes {
    /// The payloads received, by the name in the path.
    private(set) var payloads: [String: [String]] = [:]

    /// Keeps one payload posted to `/notify/{name}`.
    func receive(_ name: String, body: Data) {
        guard let payload = (try? JSONSerialization.jsonObject(with: body) as? [String: String])?["payload"] else {
            return
        }
        payloads[name, default: []].append(payload)
    }

    /// Waits (up to `seconds`, times `Waiting.patience`) until `name` received `count` payloads.
    func waitFor(_ name: String, count: Int, seconds: Double = 10) async -> [String] {
        _ = try? await Waiting.until(seconds: seconds, every: .milliseconds(20)) {
            (payloads[name]?.count ?? 0) >= count
        }
        return payloads[name] ?? []
    }

    /// Runs the receiver on a free port of 127.0.0.1 while `body` runs with that port.
    nonisolated func serve<T: Sendable>(_ body: @Sendable (_ port: Int) async throws -> T) async throws -> T {
        let router = Router()
        router.post("/notify/:name") { request, context -> Response in
            var buffer = try await request.body.collect(upTo: 1 << 20)
            let data = Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
            await self.receive(context.parameters.get("name") ?? "", body: data)
            return Response(status: .ok)
        }
        return try await ServingRouter.serve(router, label: "namespace-inboxes", body)
    }
}
