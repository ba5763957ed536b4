#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An app group moved from one developer team to another (reference §8). For the migration window
/// after `at` (60 days by default, on the mock's clock) both teams may call the migration endpoints,
/// and migrated users' id_tokens carry `transfer_sub` beside their new `sub`.
struct AppTransfer: Sendable, Codable, Equatable {
    var appGroupId: String
    var fromTeam: String
    var toTeam: String
    /// When the recipient accepted the transfer.
    var at: Date

    /// When the migration window closes.
    func windowEnd(days: Int) -> Date {
        // Within the instants the mock's clock can show (a transfer in 9999 ends there).
        min(at.addingTimeInterval(Double(days) * 86_400), MockClock.validRange.upperBound)
    }

    /// Whether `now` is inside the migration window.
    func isOpen(at now: Date, days: Int) -> Bool {
        now >= at && now < windowEnd(days: days)
    }
}

/// A transfer a scenario schedules: at start-up (`at` absent) or when the mock's clock reaches `at`.
struct ScheduledTransfer: Sendable {
    var appGroupId: String
    var toTeam: String
    var at: Date?
}

extension IdentifierDerivation {
    /// The transfer identifier of a user for a move from `fromTeam` to `toTeam`: Apple's `sub` shape,
    /// one-to-one with the user, the same for every app moved between the same two teams.
    static func transferSubject(userKey: String, fromTeam: String, toTeam: String) -> String {
        subject(userKey: userKey, teamId: "transfer\u{0}\(fromTeam)\u{0}\(toTeam)")
    }
}
