/// SplitMix64 (Steele, Lea and Flood): a tiny deterministic generator, for spelling a token's tail
/// from its random bits and for seeded tests. Not for secrets.
struct SplitMix64: RandomNumberGenerator {
    /// What the state advances by at each draw (the golden ratio, in 64 bits).
    static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= Self.increment
        return Self.mix(state)
    }

    /// The output function: `state`'s bits, scrambled.
    static func mix(_ state: UInt64) -> UInt64 {
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
