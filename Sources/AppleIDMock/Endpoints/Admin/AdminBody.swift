import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads control-plane request bodies as JSON, with errors that name the field and the reason.
enum AdminBody {
    /// The largest body the control plane accepts (a whole scenario file).
    static let maximumSize = 1024 * 1024

    /// The raw body bytes; 413 over `maximumSize`.
    static func data(_ request: Request) async throws -> Data {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumSize {
            throw ControlRefusal.tooLarge(limit: maximumSize)
        }
        let data: Data
        do {
            var buffer = try await request.body.collect(upTo: maximumSize)
            data = Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw ControlRefusal.tooLarge(limit: maximumSize)
        } catch is NIOTooManyBytesError {
            // A chunked body (no Content-Length) that runs past the limit.
            throw ControlRefusal.tooLarge(limit: maximumSize)
        } catch {
            throw ControlRefusal.invalidBody("unreadable: \(error)")
        }
        if !data.isEmpty { try AdminAccessMiddleware.requireJSON(request) }
        return data
    }

    /// The body parsed as JSON (an empty body is an empty object, for calls whose fields are all optional).
    static func json(_ request: Request, emptyIsObject: Bool = false) async throws -> JSONValue {
        let data = try await data(request)
        if emptyIsObject, data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return .object([:]) }
        do {
            return try JSONValue.parse(data)
        } catch let error as JSONValue.TooDeep {
            throw ControlRefusal.invalidBody("not accepted: \(error)")
        } catch {
            throw ControlRefusal.invalidBody("not valid JSON")
        }
    }

}
