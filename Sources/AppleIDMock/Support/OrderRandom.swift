import Synchronization

/// Random numbers for orders that carry no secret, such as the JWKS shuffled per response:
/// `SplitMix64` over one process-wide state, seeded once from the system's generator. Tokens and
/// codes are bearer secrets and keep `SystemRandomNumberGenerator`; each of its draws is a system
/// call, too dear for a shuffle on every `/auth/keys` answer.
struct OrderRandom: RandomNumberGenerator {
    private static let state = Atomic<UInt64>(UInt64.random(in: .min ... .max))

    mutating func next() -> UInt64 {
        SplitMix64.mix(Self.state.wrappingAdd(SplitMix64.increment, ordering: .relaxed).newValue)
    }
}
