import Foundation
import Testing

/// How the live suites show that something did NOT happen (a retry after a reset, a second
/// delivery) without a fixed pause, which passes on a loaded machine without proving anything:
/// they wait out the window the server's own settings give the unwanted event (read from
/// `GET /__admin/settings`, not repeated here), then queue a marker notification and wait for it
/// to arrive. The delivery worker claims due notifications in order of their due time, so once
/// the marker (due after the window) has arrived, anything due within the window had its turn.
enum QuietWindow {
    /// Returns once `date` has passed (polled on the wall clock; 5 s of grace for a slow poll).
    static func wait(until date: Date) async throws {
        #expect(try await Waiting.until(seconds: max(0, date.timeIntervalSinceNow) + 5) { Date() >= date })
    }
}

extension LiveClient {
    /// A numeric setting in force (`GET /__admin/settings`), e.g. `notificationRetryInitialMilliseconds`.
    func setting(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let settings = try await get("/__admin/settings")
        return try #require(settings.json[name] as? Int, "\(name) in \(settings.text)", sourceLocation: sourceLocation)
    }

    /// The delay before the first retry of a notification whose delivery failed or was cut short,
    /// as the settings in force say.
    func firstRetryDelay() async throws -> TimeInterval {
        Double(try await setting("notificationRetryInitialMilliseconds")) / 1000
    }

    /// Signs `sam` in natively and queues a consent-revoked notification for app group `example`
    /// (which leaves the account as it was): a marker whose arrival shows that the deliveries due
    /// before it had their turn. Returns its id.
    func queueMarker() async throws -> String {
        #expect(try await nativeAuthorize("sam").status == 200)
        return try await json("/__admin/events", #"{"type":"consent-revoked","user":"sam","appGroup":"example"}"#)
            .notificationId()
    }
}

extension NotificationInbox {
    /// Waits until `count` requests for the notification `jti` arrived; `seconds` (times
    /// `Waiting.patience`) is the deadline.
    func waitForArrivals(of jti: String, count: Int = 1, seconds: Double) async -> Bool {
        (try? await Waiting.until(seconds: seconds, every: .milliseconds(20)) {
            arrivals.count { $0.jti == jti } >= count
        }) == true
    }
}
