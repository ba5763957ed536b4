/// What the relay reads of a world to decide on mail: the teams with their registered senders, and
/// the scenario's mail settings (the day's limit, DKIM, unregistered senders, the mailbox's size).
struct RelayPolicy: Sendable {
    /// The scenario's teams, by id.
    var teams: [String: Team]
    /// Messages a relay address takes a day (`mailDailyLimit`).
    var dailyLimit: Int
    /// Whether a DKIM signature of a registered domain is required (`mailRequireDkimSignature`).
    var requireDKIM: Bool
    /// Whether unregistered senders are accepted and their messages never delivered
    /// (`mailUnregisteredSenders: drop`) instead of refused.
    var dropsUnregisteredSenders: Bool
    /// The bytes of messages the mailbox keeps (`mailboxMaxBytes`); a larger message is not kept.
    var mailboxMaxBytes: Int

    init(
        teams: [String: Team], dailyLimit: Int = 100, requireDKIM: Bool = false,
        dropsUnregisteredSenders: Bool = false, mailboxMaxBytes: Int = 64 * 1024 * 1024
    ) {
        self.teams = teams
        self.dailyLimit = dailyLimit
        self.requireDKIM = requireDKIM
        self.dropsUnregisteredSenders = dropsUnregisteredSenders
        self.mailboxMaxBytes = mailboxMaxBytes
    }

    /// The policy of `world`.
    init(world: World) {
        let settings = world.settings
        self.init(
            teams: world.teams, dailyLimit: settings.mailDailyLimit, requireDKIM: settings.mailRequireDkimSignature,
            dropsUnregisteredSenders: settings.mailUnregisteredSenders == .drop,
            mailboxMaxBytes: settings.mailboxMaxBytes)
    }

    /// Whether `refusal` is turned into a silent drop.
    func drops(_ refusal: RelayRefusal) -> Bool {
        refusal.outcome == .unauthorizedSender && dropsUnregisteredSenders
    }
}
