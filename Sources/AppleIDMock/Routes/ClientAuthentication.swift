/// `client_secret_post` authentication shared by `/auth/token` and `/auth/revoke`.
extension MockServices {
    /// The registered client named by `client_id`, after its `client_secret` passes Apple's checks.
    func authenticateClient(_ form: FormParameters, in active: ActiveScenario) async throws(OAuthError) -> World.Client
    {
        guard let clientId = try form.field("client_id") else { throw .invalidClient("client_id is missing") }
        guard let secret = try form.field("client_secret") else { throw .invalidClient("client_secret is missing") }
        guard let client = active.world.clients[clientId] else {
            throw .invalidClient("no client \"\(clientId)\" in scenario \"\(active.world.scenario.name)\"")
        }
        try await active.secrets.verify(
            secret, for: client, now: clock.now(), iatLeeway: active.world.settings.clientSecretIatLeewaySeconds)
        return client
    }
}
