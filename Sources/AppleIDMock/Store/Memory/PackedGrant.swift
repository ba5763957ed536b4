#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A grant record (code, access or refresh token) packed into a fixed-size value: its token as
/// 16 bytes, names as numbers of a `NameTable`, instants as plain doubles, and its links in the
/// list of its group. A million live grants then fit in a few hundred megabytes.
protocol PackedGrant: Sendable {
    associatedtype Record: Sendable
    /// The kind of token the space's keys are.
    static var kind: OpaqueToken.Kind { get }
    var id: TokenID { get }
    var seq: Int64 { get }
    /// When the entry expires (its index's `expiresAt`), if it does.
    var expiresAt: Double? { get }
    var links: GroupLinks { get set }
    /// What a free slot holds: the zero id, which no token has, and nothing else.
    static var vacant: Self { get }

    /// `record` packed, or `nil` when it cannot be: its token is not `key`, its index is not the
    /// one its own fields imply, or the name table is full. Names are retained.
    static func pack(_ record: Record, id: TokenID, key: String, index: EntryIndex, seq: Int64, names: inout NameTable)
        -> Self?
    /// The record and index as they were stored under `key`.
    func unpack(key: String, names: NameTable) -> (record: Record, index: EntryIndex)
    /// Lets go of the names this grant retained.
    func release(names: inout NameTable)
}

/// Where a packed grant sits in the list of its group's grants (slot numbers plus one; 0 is none).
struct GroupLinks: Sendable {
    /// The number of the group's name (0: no group).
    var group: UInt32 = 0
    var previous: UInt32 = 0
    var next: UInt32 = 0
}

/// Instants as the doubles `Date` holds, so that they unpack exactly; NaN is no instant.
enum PackedInstant {
    static func pack(_ date: Date?) -> Double { date?.timeIntervalSinceReferenceDate ?? .nan }

    static func unpack(_ value: Double) -> Date? {
        value.isNaN ? nil : Date(timeIntervalSinceReferenceDate: value)
    }
}

/// Retains names one after another, and gives them all back if one cannot be had.
struct NameRetainer {
    private(set) var retained: [UInt32] = []
    private(set) var failed = false

    mutating func retain(_ name: String?, in names: inout NameTable) -> UInt32 {
        guard !failed, let number = names.retain(name) else {
            failed = true
            return 0
        }
        retained.append(number)
        return number
    }

    /// Whether every name was had; if not, the ones that were are released.
    mutating func succeeded(_ names: inout NameTable) -> Bool {
        if failed { for number in retained { names.release(number) } }
        return !failed
    }
}

/// Whose a grant is: its client, app group and user as name numbers, and its consent generation.
struct PackedOwner: Sendable {
    private let client, appGroup, user: UInt32
    let generation: UInt32

    /// No one: what a free slot holds.
    static let none = PackedOwner()

    private init() {
        (client, appGroup, user, generation) = (0, 0, 0, 0)
    }

    /// `nil` when the generation does not fit (nothing is retained then).
    init?(
        clientId: String, appGroupId: String, userKey: String, generation: Int, retainer: inout NameRetainer,
        names: inout NameTable
    ) {
        guard let generation = UInt32(exactly: generation) else { return nil }
        client = retainer.retain(clientId, in: &names)
        appGroup = retainer.retain(appGroupId, in: &names)
        user = retainer.retain(userKey, in: &names)
        self.generation = generation
    }

    func clientId(_ names: NameTable) -> String { names.name(client) ?? "" }
    func appGroupId(_ names: NameTable) -> String { names.name(appGroup) ?? "" }
    func userKey(_ names: NameTable) -> String { names.name(user) ?? "" }

    func release(names: inout NameTable) {
        names.release(client)
        names.release(appGroup)
        names.release(user)
    }
}
