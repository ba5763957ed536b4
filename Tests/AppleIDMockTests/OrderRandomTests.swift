import Testing

@testable import AppleIDMock

/// The generator behind the JWKS order: every order turns up, draws do not repeat.
@Suite("Order random")
struct OrderRandomTests {
    @Test("shuffling three keys with it yields all six orders, each often")
    func everyOrder() {
        var random = OrderRandom()
        var counts: [[Int]: Int] = [:]
        for _ in 0..<6_000 {
            var keys = [0, 1, 2]
            keys.shuffle(using: &random)
            counts[keys, default: 0] += 1
        }
        #expect(counts.count == 6)
        #expect(counts.values.allSatisfy { (700...1_300).contains($0) })
    }

    @Test("draws from two generators interleave without repeating")
    func distinctDraws() {
        var first = OrderRandom()
        var second = OrderRandom()
        let draws = (0..<1_000).flatMap { _ in [first.next(), second.next()] }
        #expect(Set(draws).count == draws.count)
    }
}
