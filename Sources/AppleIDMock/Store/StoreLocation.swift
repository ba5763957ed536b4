#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the state lives, as given by `--state` / `APPLE_ID_MOCK_STATE`: `memory`, `sqlite:PATH`,
/// or a libpq URL `postgres://USER:PASSWORD@HOST:PORT/DB`.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    case memory
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// The parts of a PostgreSQL URL.
    public struct PostgresLocation: Sendable, Equatable {
        var host: String
        var port: Int
        var user: String
        var password: String?
        var database: String
    }

    /// Parses a `--state` value; the error names what is wrong (with any password masked).
    public init(parsing text: String) throws(StoreOpeningError) {
        if text == "memory" {
            self = .memory
            return
        }
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw StoreOpeningError(
                    location: text, cause: "sqlite: needs a file path, as in sqlite:/var/lib/mock.db")
            }
            self = .sqlite(path: path)
            return
        }
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            let masked = Self.mask(text)
            guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
                throw StoreOpeningError(
                    location: masked, cause: "not a URL of the form postgres://USER:PASSWORD@HOST:PORT/DB")
            }
            guard let user = components.user, !user.isEmpty else {
                throw StoreOpeningError(
                    location: masked, cause: "the URL names no user (postgres://USER:PASSWORD@HOST:PORT/DB)")
            }
            let database = String(components.path.drop { $0 == "/" })
            guard !database.isEmpty, !database.contains("/") else {
                throw StoreOpeningError(location: masked, cause: "the URL names no database (…@HOST:PORT/DB)")
            }
            let port = components.port ?? 5432
            guard (1...65_535).contains(port) else {
                throw StoreOpeningError(location: masked, cause: "port \(port) is out of range")
            }
            self = .postgres(
                PostgresLocation(
                    host: host, port: port, user: user, password: components.password, database: database))
            return
        }
        throw StoreOpeningError(
            location: Self.mask(text),
            cause: "unknown state store; use memory, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DB")
    }

    public var description: String {
        switch self {
        case .memory: "memory"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let location):
            "postgres://\(location.user)\(location.password == nil ? "" : ":***")@\(location.host):\(location.port)/\(location.database)"
        }
    }

    /// `text` with the password of a URL replaced by `***`.
    static func mask(_ text: String) -> String {
        guard let scheme = text.firstRange(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else {
            return text
        }
        let userInfo = text[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}
