/// Apple's private email relay rules (reference §7, §16), on values: which recipients a sender may
/// reach and which messages pass. Tested without SMTP or a store.
enum RelayRules {
    /// The decision at `RCPT TO`: the address must be a live relay address whose forwarding is on,
    /// the envelope sender registered with the address's team, and the day's limit not reached.
    static func recipient(
        _ address: String, sender: String, facts: RelayAddressFacts?, teams: [String: Team], dailyLimit: Int
    ) -> Result<RelayTarget, RelayRefusal> {
        let lowered = address.lowercased()
        guard let facts else {
            return .failure(.userNotFound(address, reason: "no user of the active scenario has this relay address"))
        }
        guard !facts.accountDeleted else {
            return .failure(.userNotFound(address, reason: "the Apple Account of user \(facts.userKey) was deleted"))
        }
        guard !facts.hiddenGroups.isEmpty, !facts.realEmail.isEmpty else {
            return .failure(
                .userNotFound(
                    address,
                    reason:
                        "user \(facts.userKey) has no standing Hide My Email authorization with an app group of team \(facts.teamId)"
                ))
        }
        guard facts.hiddenGroups.contains(where: \.forwarding) else {
            let groups = facts.hiddenGroups.map(\.appGroupId).joined(separator: ", ")
            return .failure(
                .userNotFound(
                    address, reason: "user \(facts.userKey) turned relay forwarding off (email-disabled) for \(groups)")
            )
        }
        if let refusal = senderRefusal(
            sender, field: "envelope sender (MAIL FROM)", teamId: facts.teamId, teams: teams)
        {
            return .failure(refusal)
        }
        guard facts.sentToday < dailyLimit else { return .failure(.dailyLimit(address, limit: dailyLimit)) }
        return .success(
            RelayTarget(address: lowered, userKey: facts.userKey, teamId: facts.teamId, deliverTo: facts.realEmail))
    }

    /// The decision after `DATA`: the `From` header's address must be registered with every
    /// recipient's team, and with `requireDKIM` a `DKIM-Signature` must name a registered domain
    /// (its `d=`; the signature itself is not verified).
    static func message(
        _ headers: MessageHeaders, targets: [RelayTarget], teams: [String: Team], requireDKIM: Bool
    ) -> RelayRefusal? {
        for teamId in Set(targets.map(\.teamId)).sorted() {
            let authors: MessageAuthors
            switch headers.authors {
            case .success(let found): authors = found
            case .failure(let problem): return .unreadableAuthor(reason: problem.reason)
            }
            for author in authors.from {
                if let refusal = senderRefusal(author.address, field: "From header", teamId: teamId, teams: teams) {
                    return refusal
                }
            }
            if let sender = authors.sender,
                let refusal = senderRefusal(sender.address, field: "Sender header", teamId: teamId, teams: teams)
            {
                return refusal
            }
            if requireDKIM {
                let sources = teams[teamId]?.emailSources ?? EmailSources()
                let signed = headers.dkimDomains.contains { domain in
                    sources.domains.contains { domain == $0 || domain.hasSuffix("." + $0) }
                }
                if !signed {
                    let found = headers.dkimDomains.isEmpty ? "none" : headers.dkimDomains.joined(separator: ", ")
                    return .dkimRequired(
                        reason:
                            "mailRequireDkimSignature is on: no DKIM-Signature with d= a domain registered for team \(teamId) (found: \(found))"
                    )
                }
            }
        }
        return nil
    }

    /// Why `sender` may not send to team `teamId`'s relay addresses, if it may not.
    static func senderRefusal(_ sender: String, field: String, teamId: String, teams: [String: Team]) -> RelayRefusal? {
        guard !sender.isEmpty else {
            return .unauthorizedSender(sender, reason: "the \(field) is empty (null sender)")
        }
        let sources = teams[teamId]?.emailSources ?? EmailSources()
        if sources.registers(address: sender) { return nil }
        let others = teams.values.filter { $0.teamId != teamId && $0.emailSources.registers(address: sender) }
            .map(\.teamId).sorted()
        let reason: String
        if !others.isEmpty {
            reason =
                "the \(field) \(sender) is registered for team \(others.joined(separator: ", ")), not for team \(teamId) that owns this relay address"
        } else if sources.isEmpty {
            reason = "team \(teamId) registered no email sources (teams[].emailSources in the scenario)"
        } else {
            reason =
                "the \(field) \(sender) is not registered for team \(teamId): neither its domain nor the address is in emailSources"
        }
        return .unauthorizedSender(sender, reason: reason)
    }
}
