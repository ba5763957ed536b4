import Foundation
import Hummingbird

/// Reads control-plane request bodies as JSON, with errors that name the field and the reason.
enum AdminBody {
    /// The largest body the control plane accepts (a whole scenario file).
    static let maximumSize = 1024 * 1024

    /// The raw body bytes.
    static func data(_ request: Request) async throws(ScenarioError) -> Data {
        do {
            var buffer = try await request.body.collect(upTo: maximumSize)
            return Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
        } catch {
            throw ScenarioError(file: "request body", reason: "over \(maximumSize) bytes or unreadable")
        }
    }

    /// The body parsed as JSON.
    static func json(_ request: Request) async throws(ScenarioError) -> JSONValue {
        let data = try await data(request)
        do {
            return try JSONValue.parse(data)
        } catch {
            throw ScenarioError(file: "request body", reason: "not valid JSON")
        }
    }

    /// Turns the problems a reader collected into an error.
    static func check(_ reader: JSONReader) throws(ScenarioError) {
        guard reader.problems.isEmpty else {
            throw ScenarioError(
                problems: reader.problems.map {
                    .init(file: "request body", path: $0.path.description, reason: $0.reason)
                })
        }
    }

    /// The control plane's error body: HTTP 400 with every problem.
    static func errorResponse(_ error: ScenarioError) -> Response {
        struct Body: Encodable {
            var error = "invalid_request"
            var message: String
            var problems: [ScenarioError.Problem]
        }
        return Responses.adminJSON(Body(message: error.description, problems: error.problems), status: .badRequest)
    }
}
