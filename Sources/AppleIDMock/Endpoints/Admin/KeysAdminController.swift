import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/keys`: the signing keys. List them, rotate (a new RSA-2048 key that signs, the old ones
/// published for a grace period on the mock's clock), publish, unpublish, sign with one that is not
/// (yet) published, delete a generated one, or restore the bundled set.
struct KeysAdminController: Sendable {

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.keys)) { _, context in try await self.list(context.world, context) }
        group.delete(RouterPath(AdminPath.keys)) { _, context in
            try await context.world.restoreBundledKeys()
            return try await self.list(context.world)
        }
        group.post(RouterPath(AdminPath.rotateKey)) { request, context in try await self.rotate(context.world, request)
        }
        for change in MockState.KeyChange.allCases {
            group.post(RouterPath("\(AdminPath.key)/\(change.rawValue)")) { _, context in
                try await context.world.changeKey(context.parameters.get("kid") ?? "", change)
                return try await self.list(context.world)
            }
        }
        group.delete(RouterPath(AdminPath.key)) { _, context in
            try await context.world.deleteKey(context.parameters.get("kid") ?? "")
            return try await self.list(context.world)
        }
    }

    /// One key as listed.
    struct KeyView: Encodable {
        var kid: String
        /// In `/auth/keys` now.
        var published: Bool
        /// Signs id_tokens and notifications now.
        var signing: Bool
        /// `bundled` (a file in keys/signing) or `generated` (by a rotation).
        var origin: KeyRoster.Entry.Origin
        /// When a rotation made it (mock clock); `null` for a bundled key.
        var created: Date?
        /// When it leaves `/auth/keys` (mock clock).
        var retiresAt: Date?

        enum CodingKeys: String, CodingKey {
            case kid, published, signing, origin, created, retiresAt
        }

        /// `created` is always listed (`null` for a bundled key); `retiresAt` only when set.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kid, forKey: .kid)
            try container.encode(published, forKey: .published)
            try container.encode(signing, forKey: .signing)
            try container.encode(origin, forKey: .origin)
            try container.encode(created, forKey: .created)
            try container.encodeIfPresent(retiresAt, forKey: .retiresAt)
        }
    }

    /// The listing.
    struct Listing: Encodable {
        var signingKid: String
        var keys: [KeyView]
    }

    /// The listing: as the request found it (`context`), or read now, after a change.
    private func list(_ state: MockState, _ context: WorldRequestContext? = nil) async throws -> Response {
        Responses.adminJSON(Self.listing(try await state.current(or: context?.active)))
    }

    static func listing(_ active: ActiveScenario) -> Listing {
        let now = active.now
        let signing = active.keys.signing.kid
        return Listing(
            signingKid: signing,
            keys: active.keys.entries.map { entry, _ in
                KeyView(
                    kid: entry.kid, published: entry.isPublished(at: now), signing: entry.kid == signing,
                    origin: entry.origin, created: entry.createdAt, retiresAt: entry.retiresAt)
            })
    }

    private func rotate(_ state: MockState, _ request: Request) async throws -> Response {
        var reader = JSONReader()
        let root = JSONPath.root
        let members =
            reader.object(
                try await AdminBody.json(request, emptyIsObject: true), at: root, allowed: ["graceSeconds", "publish"])
            ?? [:]
        let grace = members["graceSeconds"].flatMap {
            reader.integer($0, at: root.member("graceSeconds"), in: 0...31_536_000)
        }
        let publish = members["publish"].flatMap { reader.bool($0, at: root.member("publish")) } ?? true
        try reader.refuseBodyIfInvalid()
        let kid = try await state.rotateKey(graceSeconds: grace, publish: publish)
        /// The answer: the new key and the whole listing.
        struct Rotated: Encodable {
            var kid: String
            var signingKid: String
            var keys: [KeyView]
        }
        let listing = Self.listing(try await state.current())
        return Responses.adminJSON(
            Rotated(kid: kid, signingKid: listing.signingKid, keys: listing.keys), status: .created)
    }
}
