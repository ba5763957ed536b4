#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An authorization code, packed (see `AuthorizationCodeRecord`).
struct PackedCode: PackedGrant {
    static let kind = OpaqueToken.Kind.code
    let id: TokenID
    private let issuedAt, expires, authTime, redeemedAt: Double
    private let nonce, codeChallenge: String?
    private let owner: PackedOwner
    private let redirectUri, challengeMethod: UInt32
    var links: GroupLinks
    private let sequence: UInt32

    var seq: Int64 { Int64(sequence) }
    static let vacant = PackedCode(
        id: .zero, issuedAt: 0, expires: 0, authTime: 0, redeemedAt: 0, nonce: nil, codeChallenge: nil,
        owner: .none, redirectUri: 0, challengeMethod: 0, links: GroupLinks(), sequence: 0)

    var expiresAt: Double? { expires }

    static func pack(
        _ record: AuthorizationCodeRecord, id: TokenID, key: String, index: EntryIndex, seq: Int64,
        names: inout NameTable
    ) -> Self? {
        guard record.code == key, index.dueAt == nil, index.expiresAt == record.expiresAt,
            let sequence = UInt32(exactly: seq)
        else { return nil }
        var retainer = NameRetainer()
        guard
            let owner = PackedOwner(
                clientId: record.clientId, appGroupId: record.appGroupId, userKey: record.userKey,
                generation: record.consentGeneration, retainer: &retainer, names: &names)
        else { return nil }
        let packed = PackedCode(
            id: id, issuedAt: PackedInstant.pack(record.issuedAt),
            expires: PackedInstant.pack(record.expiresAt), authTime: PackedInstant.pack(record.authTime),
            redeemedAt: PackedInstant.pack(record.redeemedAt), nonce: record.nonce,
            codeChallenge: record.codeChallenge, owner: owner,
            redirectUri: retainer.retain(record.redirectUri, in: &names),
            challengeMethod: retainer.retain(record.codeChallengeMethod, in: &names),
            links: GroupLinks(group: retainer.retain(index.group, in: &names)), sequence: sequence)
        return retainer.succeeded(&names) ? packed : nil
    }

    func unpack(key: String, names: NameTable) -> (record: AuthorizationCodeRecord, index: EntryIndex) {
        let record = AuthorizationCodeRecord(
            code: key, clientId: owner.clientId(names), appGroupId: owner.appGroupId(names),
            userKey: owner.userKey(names), redirectUri: names.name(redirectUri), nonce: nonce,
            codeChallenge: codeChallenge, codeChallengeMethod: names.name(challengeMethod),
            issuedAt: PackedInstant.unpack(issuedAt) ?? .distantPast,
            expiresAt: PackedInstant.unpack(expires) ?? .distantPast,
            authTime: PackedInstant.unpack(authTime) ?? .distantPast, consentGeneration: Int(owner.generation),
            redeemedAt: PackedInstant.unpack(redeemedAt))
        return (record, EntryIndex(expiresAt: record.expiresAt, group: names.name(links.group)))
    }

    func release(names: inout NameTable) {
        owner.release(names: &names)
        names.release(redirectUri)
        names.release(challengeMethod)
        names.release(links.group)
    }
}

/// An access token, packed (see `AccessTokenRecord`).
struct PackedAccessToken: PackedGrant {
    static let kind = OpaqueToken.Kind.accessToken
    let id: TokenID
    private let expires: Double
    private let owner: PackedOwner
    var links: GroupLinks
    private let sequence: UInt32

    var seq: Int64 { Int64(sequence) }
    static let vacant = PackedAccessToken(id: .zero, expires: 0, owner: .none, links: GroupLinks(), sequence: 0)

    var expiresAt: Double? { expires }

    static func pack(
        _ record: AccessTokenRecord, id: TokenID, key: String, index: EntryIndex, seq: Int64, names: inout NameTable
    ) -> Self? {
        guard record.token == key, index.dueAt == nil, index.expiresAt == record.expiresAt,
            let sequence = UInt32(exactly: seq)
        else { return nil }
        var retainer = NameRetainer()
        guard
            let owner = PackedOwner(
                clientId: record.clientId, appGroupId: record.appGroupId, userKey: record.userKey,
                generation: record.consentGeneration, retainer: &retainer, names: &names)
        else { return nil }
        let packed = PackedAccessToken(
            id: id, expires: PackedInstant.pack(record.expiresAt), owner: owner,
            links: GroupLinks(group: retainer.retain(index.group, in: &names)), sequence: sequence)
        return retainer.succeeded(&names) ? packed : nil
    }

    func unpack(key: String, names: NameTable) -> (record: AccessTokenRecord, index: EntryIndex) {
        let record = AccessTokenRecord(
            token: key, clientId: owner.clientId(names), appGroupId: owner.appGroupId(names),
            userKey: owner.userKey(names), expiresAt: PackedInstant.unpack(expires) ?? .distantPast,
            consentGeneration: Int(owner.generation))
        return (record, EntryIndex(expiresAt: record.expiresAt, group: names.name(links.group)))
    }

    func release(names: inout NameTable) {
        owner.release(names: &names)
        names.release(links.group)
    }
}

/// A refresh token, packed (see `RefreshTokenRecord`); it never expires.
struct PackedRefreshToken: PackedGrant {
    static let kind = OpaqueToken.Kind.refreshToken
    let id: TokenID
    private let authTime: Double
    private let nonce: String?
    private let owner: PackedOwner
    var links: GroupLinks
    private let sequence: UInt32

    var seq: Int64 { Int64(sequence) }
    static let vacant = PackedRefreshToken(
        id: .zero, authTime: 0, nonce: nil, owner: .none, links: GroupLinks(), sequence: 0)

    var expiresAt: Double? { nil }

    static func pack(
        _ record: RefreshTokenRecord, id: TokenID, key: String, index: EntryIndex, seq: Int64, names: inout NameTable
    ) -> Self? {
        guard record.token == key, index.dueAt == nil, index.expiresAt == nil, let sequence = UInt32(exactly: seq)
        else {
            return nil
        }
        var retainer = NameRetainer()
        guard
            let owner = PackedOwner(
                clientId: record.clientId, appGroupId: record.appGroupId, userKey: record.userKey,
                generation: record.consentGeneration, retainer: &retainer, names: &names)
        else { return nil }
        let packed = PackedRefreshToken(
            id: id, authTime: PackedInstant.pack(record.authTime), nonce: record.nonce, owner: owner,
            links: GroupLinks(group: retainer.retain(index.group, in: &names)), sequence: sequence)
        return retainer.succeeded(&names) ? packed : nil
    }

    func unpack(key: String, names: NameTable) -> (record: RefreshTokenRecord, index: EntryIndex) {
        let record = RefreshTokenRecord(
            token: key, clientId: owner.clientId(names), appGroupId: owner.appGroupId(names),
            userKey: owner.userKey(names), authTime: PackedInstant.unpack(authTime) ?? .distantPast, nonce: nonce,
            consentGeneration: Int(owner.generation))
        return (record, EntryIndex(group: names.name(links.group)))
    }

    func release(names: inout NameTable) {
        owner.release(names: &names)
        names.release(links.group)
    }
}

/// A spent code, packed: when it was exchanged and when it would have expired.
struct PackedSpentCode: PackedGrant {
    static let kind = OpaqueToken.Kind.code
    let id: TokenID
    private let at, expires: Double
    var links: GroupLinks
    private let sequence: UInt32

    var seq: Int64 { Int64(sequence) }
    static let vacant = PackedSpentCode(id: .zero, at: 0, expires: 0, links: GroupLinks(), sequence: 0)

    var expiresAt: Double? { expires }

    static func pack(_ record: Marker, id: TokenID, key: String, index: EntryIndex, seq: Int64, names: inout NameTable)
        -> Self?
    {
        guard index.dueAt == nil, let expiresAt = index.expiresAt, let sequence = UInt32(exactly: seq),
            let group = names.retain(index.group)
        else { return nil }
        return PackedSpentCode(
            id: id, at: PackedInstant.pack(record.at), expires: PackedInstant.pack(expiresAt),
            links: GroupLinks(group: group), sequence: sequence)
    }

    func unpack(key: String, names: NameTable) -> (record: Marker, index: EntryIndex) {
        (
            Marker(at: PackedInstant.unpack(at) ?? .distantPast),
            EntryIndex(expiresAt: PackedInstant.unpack(expires), group: names.name(links.group))
        )
    }

    func release(names: inout NameTable) {
        names.release(links.group)
    }
}
