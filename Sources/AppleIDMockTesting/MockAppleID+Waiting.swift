import AppleIDMock

/// The kit's waits sleep on the mock (`waitSeconds`), which answers as soon as what they wait for
/// is there; each read asks for at most `longestWait`, and the kit asks again until its own
/// deadline.
extension MockAppleID {
    /// The longest one waiting read asks the mock for: within the mock's 60 s, and well within the
    /// test client's read timeout (20 s on `.live`), after which the request would fail.
    static let longestWait: Duration = .seconds(10)

    /// `waitSeconds` for one waiting read that ends by `deadline` and lasts at most `longest`: a
    /// plain decimal in milliseconds, as the mock reads it (`2.5`, `0.040`); `nil` once the
    /// deadline has passed.
    static func waitSeconds(until deadline: ContinuousClock.Instant, atMost longest: Duration = longestWait)
        -> String?
    {
        let left = min(deadline - .now, longest)
        let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        guard milliseconds > 0 else { return nil }
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
