/// `client_secret_post` authentication shared by `/auth/token`, `/auth/revoke` and
/// `/auth/usermigrationinfo`: the registered client named by `client_id`, after its `client_secret`
/// passes Apple's checks.
enum ClientAuthentication {
    /// The client and the team whose key signed its secret (the previous owner during a migration
    /// window). The secret's key is noted in `journal`.
    static func authenticate(
        clientId: String?, secret: String?, in active: ActiveScenario, journal: JournalDraft?
    ) async throws(AppleError) -> (client: World.Client, team: String) {
        guard let clientId else { throw .invalidClient("client_id is missing") }
        guard let secret else { throw .invalidClient("client_secret is missing") }
        guard let client = active.world.clients[clientId] else {
            throw .invalidClient("no client \"\(clientId)\" in scenario \"\(active.world.scenario.name)\"")
        }
        let now = active.now
        let team = try await active.secrets.verify(
            secret, for: client, teams: active.world.acceptedTeams(for: client, at: now), now: now,
            iatLeeway: active.world.settings.clientSecretIatLeewaySeconds, epoch: active.control.epoch,
            journal: journal)
        return (client, team)
    }
}
