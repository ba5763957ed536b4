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

    /// Runs a control-plane handler; every failure becomes a 4xx naming the reason, never a 500:
    /// 400 for malformed input, 404 for something unknown, 409 for an event that does not apply.
    static func run(_ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let error as ScenarioError {
            return errorResponse(error)
        } catch let refusal as LifecycleRefusal {
            return refusalResponse(refusal)
        } catch let failure as StoreUnavailable {
            /// The JSON error body.
            struct Body: Encodable {
                var error = "store_unavailable"
                var message: String
            }
            return Responses.adminJSON(Body(message: failure.description), status: .serviceUnavailable)
        } catch let error as OAuthError {
            return refusalResponse(LifecycleRefusal(kind: .notApplicable, message: error.logReason ?? error.code))
        } catch {
            return errorResponse(ScenarioError(file: "request", reason: "\(error)"))
        }
    }

    /// 404 (`not_found`) or 409 (`not_applicable`) with the reason.
    static func refusalResponse(_ refusal: LifecycleRefusal) -> Response {
        /// The JSON error body.
        struct Body: Encodable {
            var error: String
            var message: String
        }
        switch refusal.kind {
        case .notFound:
            return Responses.adminJSON(Body(error: "not_found", message: refusal.message), status: .notFound)
        case .notApplicable:
            return Responses.adminJSON(Body(error: "not_applicable", message: refusal.message), status: .conflict)
        }
    }

    /// The control plane's error body: HTTP 400 with every problem.
    static func errorResponse(_ error: ScenarioError) -> Response {
        /// The JSON error body.
        struct Body: Encodable {
            var error = "invalid_request"
            var message: String
            var problems: [ScenarioError.Problem]
        }
        return Responses.adminJSON(Body(message: error.description, problems: error.problems), status: .badRequest)
    }
}
