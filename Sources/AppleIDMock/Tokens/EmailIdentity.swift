/// The address a user shares with one team, and what the token says about it.
struct EmailIdentity: Sendable, Equatable {
    /// The real address or the team's relay address.
    var email: String
    /// Whether `email` is a relay address.
    var isPrivate: Bool
    /// Whether Apple vouches for it.
    var verified: Bool
}

extension World {
    /// The email a consent shares with the team, or `nil` when the email scope was not granted.
    func emailIdentity(of user: User, consent: Consent, teamId: String) -> EmailIdentity? {
        guard consent.grantsEmail else { return nil }
        if consent.hidesEmail && !user.email.isEmpty {
            return EmailIdentity(email: relayEmail(of: user, teamId: teamId), isPrivate: true, verified: true)
        }
        return EmailIdentity(email: user.email, isPrivate: false, verified: user.emailVerified && !user.email.isEmpty)
    }
}
