/// Finds a packed grant's slot by its token's random bits: an open-addressing table (linear
/// probing, deletion by backward shift) of slot numbers, 4 bytes a bucket, where a dictionary from
/// 16-byte ids would take 20. The ids themselves stay in the slots; `id(of:)` reads them.
struct TokenIndex {
    /// Slot numbers plus one; 0 is an empty bucket.
    private var buckets = [UInt32](repeating: 0, count: 16)
    private(set) var count = 0

    private var mask: Int { buckets.count - 1 }

    private func home(_ id: TokenID) -> Int {
        Int(truncatingIfNeeded: ((id.high ^ id.low) &* 0x9E37_79B9_7F4A_7C15) >> 17) & mask
    }

    /// The slot holding `id`.
    func slot(of id: TokenID, idOf slotId: (UInt32) -> TokenID) -> UInt32? {
        var bucket = home(id)
        while buckets[bucket] != 0 {
            let slot = buckets[bucket] - 1
            if slotId(slot) == id { return slot }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// Files `slot` (whose id is not in the index yet).
    mutating func insert(_ slot: UInt32, idOf slotId: (UInt32) -> TokenID) {
        if (count + 1) * 4 > buckets.count * 3 { grow(idOf: slotId) }
        var bucket = home(slotId(slot))
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = slot + 1
        count += 1
    }

    /// Removes `slot`, filed under `id`.
    mutating func remove(_ slot: UInt32, id: TokenID, idOf slotId: (UInt32) -> TokenID) {
        var hole = home(id)
        while buckets[hole] != slot + 1 {
            guard buckets[hole] != 0 else { return }
            hole = (hole + 1) & mask
        }
        // Shift back every later entry of the run that may not sit beyond the hole.
        var next = (hole + 1) & mask
        while buckets[next] != 0 {
            let wanted = home(slotId(buckets[next] - 1))
            let staysAfterHole = hole <= next ? (hole < wanted && wanted <= next) : (hole < wanted || wanted <= next)
            if !staysAfterHole {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = 0
        count -= 1
    }

    /// Empties the index.
    mutating func removeAll() {
        buckets = [UInt32](repeating: 0, count: 16)
        count = 0
    }

    private mutating func grow(idOf slotId: (UInt32) -> TokenID) {
        let old = buckets
        buckets = [UInt32](repeating: 0, count: old.count * 2)
        for entry in old where entry != 0 {
            var bucket = home(slotId(entry - 1))
            while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = entry
        }
    }
}
