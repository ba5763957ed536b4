/// Posts one made-to-order notification to a receiver, outside the outbox, and reports its answer.
enum NotificationProbe {
    /// One client for the process.
    private static let client = NotificationPost.makeClient()

    /// What the receiver answered.
    struct Answer: Sendable {
        /// The HTTP status, or `nil` when none came.
        var status: Int?
        var outcome: DeliveryOutcome
        var milliseconds: Int
    }

    /// Posts `{"payload": jws}` to `url` within `timeoutMilliseconds`, timing the exchange.
    static func post(_ jws: String, to url: String, timeoutMilliseconds: Int) async -> Answer {
        let started = ContinuousClock.now
        let (status, outcome) = await NotificationPost.send(
            jws, to: url, timeoutMilliseconds: timeoutMilliseconds, client: client)
        return Answer(status: status, outcome: outcome, milliseconds: (ContinuousClock.now - started).wholeMilliseconds)
    }
}
