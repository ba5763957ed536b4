import Foundation
import Testing

@testable import AppleIDMock

/// Opaque tokens are their kind and 16 bytes: what is made parses back, and nothing else does.
@Suite("Opaque token ids")
struct OpaqueTokenIdTests {
    @Test("a made value parses to its kind and id, which spell it again", arguments: OpaqueToken.Kind.allCases)
    func roundTrip(kind: OpaqueToken.Kind) throws {
        for _ in 0..<200 {
            let value = OpaqueToken.make(kind)
            let parsed = try #require(OpaqueToken.parse(value))
            #expect(parsed.kind == kind)
            #expect(OpaqueToken.string(kind, parsed.id) == value)
            #expect(value.utf8.count == OpaqueToken.length)
        }
    }

    @Test("other shapes, a changed tail, upper-case hex and the zero id are not ids")
    func rejects() throws {
        let value = OpaqueToken.make(.code)
        var tail = Array(value.utf8)
        tail[tail.count - 1] = tail[tail.count - 1] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let zero = OpaqueToken.string(.code, .zero)
        for bad in [
            "", "c", String(value.dropLast()), value + "x", value.uppercased(), String(decoding: tail, as: UTF8.self),
            "x" + value.dropFirst(), zero, "c-test-code",
        ] {
            #expect(OpaqueToken.parse(bad) == nil, "\(bad)")
        }
    }
}

/// The open-addressing index agrees with a plain dictionary through inserts and removals.
@Suite("Token index")
struct TokenIndexTests {
    @Test("random inserts and removals find exactly the live slots")
    func model() {
        var random = SplitMix64(state: 7)
        var ids: [TokenID] = []
        var live: [TokenID: UInt32] = [:]
        var index = TokenIndex()
        for step in 0..<20_000 {
            if live.isEmpty || random.next() % 3 != 0 {
                // Few distinct high bits, so that runs collide and removals shift entries back.
                let id = TokenID(high: random.next() % 64, low: random.next() % 4096)
                guard live[id] == nil, id != .zero else { continue }
                let slot = UInt32(ids.count)
                ids.append(id)
                live[id] = slot
                index.insert(slot) { ids[Int($0)] }
            } else {
                let (id, slot) = live.randomElement(using: &random)!
                live[id] = nil
                index.remove(slot, id: id) { ids[Int($0)] }
            }
            if step % 997 == 0 || step == 19_999 {
                #expect(index.count == live.count)
                for (id, slot) in live { #expect(index.slot(of: id) { ids[Int($0)] } == slot) }
                #expect(index.slot(of: TokenID(high: 999, low: 1)) { ids[Int($0)] } == nil)
            }
        }
    }
}

/// Codes and tokens kept packed read back exactly as written, and behave as unpacked entries do.
@Suite("Packed grants")
struct PackedGrantTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000.25)

    private func code(_ key: String = OpaqueToken.make(.code), nonce: String? = nil, redeemed: Bool = false)
        -> AuthorizationCodeRecord
    {
        AuthorizationCodeRecord(
            code: key, clientId: "com.example.web", appGroupId: "example", userKey: "maria",
            redirectUri: nonce == nil ? nil : "https://example.com/callback", nonce: nonce,
            codeChallenge: nonce.map { "challenge-\($0)" }, codeChallengeMethod: nonce == nil ? nil : "S256",
            issuedAt: now, expiresAt: now.addingTimeInterval(300), authTime: now.addingTimeInterval(-0.1),
            consentGeneration: 3, redeemedAt: redeemed ? now.addingTimeInterval(1.5) : nil)
    }

    private func entry(_ value: any Sendable, expiresAt: Date?, group: String? = "maria\u{1F}example\u{1F}3")
        -> MemoryEntry
    {
        MemoryEntry(value: value, index: EntryIndex(expiresAt: expiresAt, group: group), seq: 41)
    }

    @Test("every field of each record comes back, with its index and insertion number")
    func roundTrip() throws {
        var tables = MemoryTables()
        let codes = [code(), code(nonce: "n-0123456789abcdefghij", redeemed: true)]
        for record in codes {
            tables.write(
                EntryRef(space: Spaces.codes.name, key: record.code), entry(record, expiresAt: record.expiresAt))
        }
        let access = AccessTokenRecord(
            token: OpaqueToken.make(.accessToken), clientId: "com.example.web", appGroupId: "example", userKey: "maria",
            expiresAt: now.addingTimeInterval(3600), consentGeneration: 3)
        tables.write(
            EntryRef(space: Spaces.accessTokens.name, key: access.token), entry(access, expiresAt: access.expiresAt))
        let refresh = RefreshTokenRecord(
            token: OpaqueToken.make(.refreshToken), clientId: "com.example.web", appGroupId: "example",
            userKey: "maria", authTime: now, nonce: "nonce", consentGeneration: 3)
        tables.write(EntryRef(space: Spaces.refreshTokens.name, key: refresh.token), entry(refresh, expiresAt: nil))

        for record in codes {
            let readEntry = tables.entry(EntryRef(space: Spaces.codes.name, key: record.code))
            let read = try #require(readEntry)
            #expect(read.value as? AuthorizationCodeRecord == record)
            #expect(read.index == EntryIndex(expiresAt: record.expiresAt, group: "maria\u{1F}example\u{1F}3"))
            #expect(read.seq == 41)
        }
        let readAccessEntry = tables.entry(EntryRef(space: Spaces.accessTokens.name, key: access.token))
        let readAccess = try #require(readAccessEntry)
        #expect(readAccess.value as? AccessTokenRecord == access)
        let readRefreshEntry = tables.entry(EntryRef(space: Spaces.refreshTokens.name, key: refresh.token))
        let readRefresh = try #require(readRefreshEntry)
        #expect(readRefresh.value as? RefreshTokenRecord == refresh)
        #expect(readRefresh.index == EntryIndex(group: "maria\u{1F}example\u{1F}3"))
        let spentKey = EntryRef(space: Spaces.spentCodes.name, key: OpaqueToken.make(.code))
        tables.write(spentKey, entry(Marker(at: now), expiresAt: now.addingTimeInterval(300)))
        let spentEntry = tables.entry(spentKey)
        let spent = try #require(spentEntry)
        #expect(spent.value as? Marker == Marker(at: now))
        #expect(spent.index == EntryIndex(expiresAt: now.addingTimeInterval(300), group: "maria\u{1F}example\u{1F}3"))
        #expect(tables.count(in: Spaces.codes.name) == 2)
        #expect(Set(tables.entries(in: Spaces.codes.name).keys) == Set(codes.map(\.code)))
    }

    @Test("what cannot be packed is kept as it is: other keys, an index of its own, a due time")
    func fallback() throws {
        var tables = MemoryTables()
        let odd = code("c-test-code")
        let ownIndex = code()
        let due = code()
        tables.write(EntryRef(space: Spaces.codes.name, key: odd.code), entry(odd, expiresAt: odd.expiresAt))
        tables.write(EntryRef(space: Spaces.codes.name, key: ownIndex.code), entry(ownIndex, expiresAt: nil))
        tables.write(
            EntryRef(space: Spaces.codes.name, key: due.code),
            MemoryEntry(value: due, index: EntryIndex(expiresAt: due.expiresAt, dueAt: now), seq: 2))
        for (record, expiresAt) in [(odd, odd.expiresAt), (ownIndex, nil), (due, due.expiresAt)] {
            let readEntry = tables.entry(EntryRef(space: Spaces.codes.name, key: record.code))
            let read = try #require(readEntry)
            #expect(read.value as? AuthorizationCodeRecord == record)
            #expect(read.index.expiresAt == expiresAt)
        }
        // A packed code rewritten with an index of its own moves out of the packed space, and back.
        let key = EntryRef(space: Spaces.codes.name, key: ownIndex.code)
        tables.write(key, entry(ownIndex, expiresAt: ownIndex.expiresAt))
        tables.write(key, entry(ownIndex, expiresAt: nil))
        #expect(tables.entry(key)?.index.expiresAt == nil)
        #expect(tables.count(in: Spaces.codes.name) == 3)
    }

    @Test("groups list their grants across rewrites and removals; expiry finds what expired")
    func groupsAndExpiry() throws {
        var tables = MemoryTables()
        let group = "maria\u{1F}example\u{1F}3"
        var codes = (0..<50).map { _ in code() }
        for (offset, record) in codes.enumerated() {
            var record = record
            record.expiresAt = now.addingTimeInterval(Double(offset))
            codes[offset] = record
            tables.write(
                EntryRef(space: Spaces.codes.name, key: record.code), entry(record, expiresAt: record.expiresAt))
        }
        // Redeeming rewrites in place; moving one to another group takes it out of this one.
        var redeemed = codes[10]
        redeemed.redeemedAt = now
        tables.write(
            EntryRef(space: Spaces.codes.name, key: redeemed.code), entry(redeemed, expiresAt: redeemed.expiresAt))
        tables.write(
            EntryRef(space: Spaces.codes.name, key: codes[11].code),
            entry(codes[11], expiresAt: codes[11].expiresAt, group: "other"))
        tables.apply(StoreChanges(writes: [EntryRef(space: Spaces.codes.name, key: codes[12].code): MemoryEntry?.none]))
        let inGroup = Set(tables.refs(inGroup: group, spaces: [Spaces.codes.name]).map(\.key))
        #expect(inGroup == Set(codes.map(\.code)).subtracting([codes[11].code, codes[12].code]))
        #expect(tables.refs(inGroup: "other", spaces: [Spaces.codes.name]).map(\.key) == [codes[11].code])

        let expired = Set(tables.expiredRefs(before: now.addingTimeInterval(20)).map(\.key))
        #expect(expired == Set(codes[0..<20].map(\.code)).subtracting([codes[12].code]))
        #expect(tables.expiredRefs(before: now.addingTimeInterval(20)).isEmpty)
        tables.restoreExpiry(Array(expired).map { EntryRef(space: Spaces.codes.name, key: $0) })
        #expect(Set(tables.expiredRefs(before: now.addingTimeInterval(20)).map(\.key)) == expired)
    }

    @Test("after many early removals (exchanged codes) the sweep still finds exactly what expired")
    func staleMarks() {
        let space = PackedSpace<PackedCode>()
        var keys: [String] = []
        for offset in 0..<3000 {
            var record = code()
            record.expiresAt = now.addingTimeInterval(Double(offset))
            keys.append(record.code)
            #expect(space.write(record.code, entry(record, expiresAt: record.expiresAt)))
        }
        for key in keys where keys.firstIndex(of: key)! % 3 != 0 { space.remove(key) }
        let firstBatch = space.expiredKeys(before: now.addingTimeInterval(1500), limit: 100)
        #expect(firstBatch.count == 100)
        let expired = Set(firstBatch + space.expiredKeys(before: now.addingTimeInterval(1500), limit: .max))
        #expect(expired == Set(keys[0..<1500].enumerated().filter { $0.offset % 3 == 0 }.map(\.element)))
        #expect(space.count == 1000)
    }

    @Test("expiry is exact to the fraction of a second, though the sweep files it by whole seconds")
    func expiryWithinASecond() {
        let space = PackedSpace<PackedAccessToken>()
        // Ten tokens expiring a tenth of a second apart, across a second's boundary.
        let records = (0..<10).map { step in
            AccessTokenRecord(
                token: OpaqueToken.make(.accessToken), clientId: "com.example.web", appGroupId: "example",
                userKey: "maria", expiresAt: now.addingTimeInterval(0.1 * Double(step) + 0.3), consentGeneration: 1)
        }
        for record in records { #expect(space.write(record.token, entry(record, expiresAt: record.expiresAt))) }
        var live = Set(records.map(\.token))
        // The same cut twice: marks of the second that had not expired yet were filed again.
        for cut in [0.55, 0.55, 1.0, 1.25] {
            let instant = now.addingTimeInterval(cut)
            let expired = space.expiredKeys(before: instant, limit: .max)
            let due = Set(records.filter { live.contains($0.token) && $0.expiresAt < instant }.map(\.token))
            #expect(expired.count == due.count && Set(expired) == due)
            for key in expired { space.remove(key) }
            live.subtract(due)
        }
        #expect(space.count == 0)
    }

    @Test("an insertion number past 32 bits is kept unpacked, and reads back the same")
    func largeInsertionNumber() throws {
        var tables = MemoryTables()
        let record = code()
        let ref = EntryRef(space: Spaces.codes.name, key: record.code)
        let seq = Int64(UInt32.max) + 5
        tables.write(ref, MemoryEntry(value: record, index: EntryIndex(expiresAt: record.expiresAt), seq: seq))
        let readEntry = tables.entry(ref)
        let read = try #require(readEntry)
        #expect(read.seq == seq)
        #expect(read.value as? AuthorizationCodeRecord == record)
    }

    @Test("the grants that outnumber the rest take no more room than their fields")
    func slotSizes() {
        #expect(MemoryLayout<PackedAccessToken>.stride == 56)
        #expect(MemoryLayout<PackedRefreshToken>.stride == 72)
        #expect(MemoryLayout<PackedSpentCode>.stride == 48)
    }

    @Test("a sweep frees a burst of expiries in bounded steps and counts them all")
    func sweepInSteps() async throws {
        let store = MemoryStore()
        let count = MemoryStore.sweepBatch * 2 + 17
        let records = (0..<count).map { _ in code() }
        try await store.transaction { transaction in
            for record in records {
                try await transaction.put(
                    Spaces.codes, record.code, record, index: EntryIndex(expiresAt: record.expiresAt, group: "g"))
            }
        }
        #expect(try await store.sweep(expiredBefore: now.addingTimeInterval(301)) == count)
        #expect(store.tables.withLock { $0.count(in: Spaces.codes.name) } == 0)
    }

    @Test("names no grant uses any more are dropped; a cleared space holds nothing")
    func namesAreReleased() {
        let space = PackedSpace<PackedAccessToken>()
        var keys: [String] = []
        for user in 0..<100 {
            let record = AccessTokenRecord(
                token: OpaqueToken.make(.accessToken), clientId: "com.example.web", appGroupId: "example",
                userKey: "user-\(user)", expiresAt: now, consentGeneration: 1)
            keys.append(record.token)
            #expect(space.write(record.token, entry(record, expiresAt: now, group: "user-\(user)\u{1F}example\u{1F}1")))
        }
        #expect(space.namesHeld == 2 + 200)
        for key in keys.prefix(99) { space.remove(key) }
        #expect(space.namesHeld == 2 + 2)
        #expect(space.count == 1)
        space.removeAll()
        #expect(space.count == 0 && space.entry(keys[99]) == nil && space.namesHeld == 0)
    }
}
