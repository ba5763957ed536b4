/// A relay address the relay accepted at RCPT TO: whose it is and where its mail goes.
struct RelayTarget: Sendable, Equatable, Codable {
    /// The relay address, lowercased.
    var address: String
    /// The scenario user behind it.
    var userKey: String
    /// The team it belongs to.
    var teamId: String
    /// The user's real address, where the relay delivers.
    var deliverTo: String
}

/// What the relay knows of a relay address when a recipient is checked, read from the scenario
/// and the state in one step.
struct RelayAddressFacts: Sendable, Equatable {
    /// The user and team the address belongs to.
    var userKey: String
    var teamId: String
    /// The user's real address.
    var realEmail: String
    /// Whether the user's Apple Account was deleted.
    var accountDeleted: Bool
    /// The team's app groups the user authorized with Hide My Email, with whether forwarding is on.
    var hiddenGroups: [(appGroupId: String, forwarding: Bool)]
    /// Messages relayed to the address today on the mock's clock.
    var sentToday: Int

    static func == (lhs: RelayAddressFacts, rhs: RelayAddressFacts) -> Bool {
        lhs.userKey == rhs.userKey && lhs.teamId == rhs.teamId && lhs.realEmail == rhs.realEmail
            && lhs.accountDeleted == rhs.accountDeleted && lhs.sentToday == rhs.sentToday
            && lhs.hiddenGroups.map(\.appGroupId) == rhs.hiddenGroups.map(\.appGroupId)
            && lhs.hiddenGroups.map(\.forwarding) == rhs.hiddenGroups.map(\.forwarding)
    }
}
