import AppleIDMock

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MockAppleID {
    /// Whose identifiers a namespace's users have.
    public enum NamespaceIdentities: String, Sendable, Encodable {
        /// The namespace's name is mixed into every `sub`, relay address and `transfer_sub` (the
        /// mock's default for a namespace): one backend sees different accounts in each namespace.
        case own
        /// The identifiers of the `default` world (for a backend per namespace).
        case shared
    }

    /// How `withNamespace` makes its namespace (`PUT /__admin/namespaces/{name}`); each `nil` field
    /// is left to the mock (the `default` scenario, own identities, no claimed clients, the idle TTL).
    public struct NamespaceOptions: Sendable {
        /// The scenario active in the namespace.
        public var scenario: String?
        /// Own or shared identifiers.
        public var identities: NamespaceIdentities?
        /// Client ids whose requests land in this namespace when they carry nothing else that names
        /// one (a client id belongs to at most one namespace).
        public var clients: [String]?
        /// Removed by the mock after this long unused (whole seconds).
        public var idleTTL: Duration?

        public init(
            scenario: String? = nil, identities: NamespaceIdentities? = nil, clients: [String]? = nil,
            idleTTL: Duration? = nil
        ) {
            self.scenario = scenario
            self.identities = identities
            self.clients = clients
            self.idleTTL = idleTTL
        }
    }

    /// Makes a fresh namespace on this mock (named `name`, or a random UUID), runs `body` with a
    /// handle working in it, and deletes the namespace with all its state afterwards, also when
    /// `body` throws. The handle's `baseURL` is `…/ns/<name>` (give it to the backend under test) and
    /// every helper (sign-ins, clock, faults, scenarios, journal, events, mail, verify) acts on that
    /// namespace only, so tests running in parallel against one mock do not see each other.
    /// A namespace that already exists is updated with `options`, then deleted all the same.
    public func withNamespace<Value>(
        _ name: String? = nil, options: NamespaceOptions = NamespaceOptions(),
        _ body: (MockAppleID) async throws -> Value
    ) async throws -> Value {
        let name = name ?? UUID().uuidString.lowercased()
        let root = inNamespace(nil)
        let path = Self.namespacePath(name)
        try await root.succeeding(.put, path, body: .json(try Self.namespaceBody(options)))
        let value: Value
        do {
            value = try await body(inNamespace(name))
        } catch {
            _ = try? await root.deleteNamespace(path)
            throw error
        }
        try await root.deleteNamespace(path)
        return value
    }

    /// `/ns/<name>`: where a namespace's URLs live.
    static func pathPrefix(of namespace: String) -> String {
        "/" + NamespaceName.pathComponent + "/" + Self.pathSegment(namespace)
    }

    /// `/__admin/namespaces/<name>`.
    static func namespacePath(_ name: String) -> String {
        AdminPath.absolute(AdminPath.namespace.replacingOccurrences(of: ":name", with: pathSegment(name)))
    }

    /// `text` percent-encoded as one path segment (a name the mock refuses stays one segment, so the
    /// mock's refusal names it).
    private static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"])) ?? text
    }

    /// The body of the `PUT`.
    private static func namespaceBody(_ options: NamespaceOptions) throws -> String {
        /// As the control plane reads it.
        struct Body: Encodable {
            var scenario: String?
            var identities: NamespaceIdentities?
            var clients: [String]?
            var idleTtlSeconds: Int?
        }
        let body = Body(
            scenario: options.scenario, identities: options.identities, clients: options.clients,
            idleTtlSeconds: try options.idleTTL.map { try wholeSeconds($0, "NamespaceOptions.idleTTL") })
        return String(decoding: try JSONEncoder().encode(body), as: UTF8.self)
    }

    /// Deletes the namespace at `path`; one already gone (the body deleted it, or the mock's
    /// housekeeping did) is not an error.
    private func deleteNamespace(_ path: String) async throws {
        let answer = try await send(.delete, path)
        guard (200..<300).contains(answer.status) || answer.status == 404 else {
            throw MockAppleIDError.unexpectedAnswer(path: path, status: answer.status, body: answer.body)
        }
    }
}
