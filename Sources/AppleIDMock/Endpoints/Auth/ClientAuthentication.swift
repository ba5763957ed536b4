/// `client_secret_post` authentication shared by `/auth/token`, `/auth/revoke` and `/auth/usermigrationinfo`.
extension MockServices {
    /// The registered client named by `client_id`, after its `client_secret` passes Apple's checks.
    func authenticateClient(_ form: FormParameters, in active: ActiveScenario) async throws(OAuthError) -> World.Client
    {
        try await authenticate(form, in: active).client
    }

    /// The client and the team whose key signed its secret (the previous owner during a migration window).
    func authenticate(_ form: FormParameters, in active: ActiveScenario) async throws(OAuthError) -> (
        client: World.Client, team: String
    ) {
        guard let clientId = try form.field("client_id") else { throw .invalidClient("client_id is missing") }
        guard let secret = try form.field("client_secret") else { throw .invalidClient("client_secret is missing") }
        guard let client = active.world.clients[clientId] else {
            throw .invalidClient("no client \"\(clientId)\" in scenario \"\(active.world.scenario.name)\"")
        }
        let now = active.now
        let team = try await active.secrets.verify(
            secret, for: client, teams: active.world.acceptedTeams(for: client, at: now), now: now,
            iatLeeway: active.world.settings.clientSecretIatLeewaySeconds, epoch: active.control.epoch)
        return (client, team)
    }
}
