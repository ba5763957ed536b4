/// The mock's stand-in for Apple's sign-in sheet: pick a scenario user, share or hide the email
/// when email was requested, then continue or cancel. Posts to `/auth/authorize/consent`.
enum ConsentPage {
    /// Field names the page adds beside the request's own parameters.
    enum Field {
        static let user = "mock_user"
        static let email = "mock_email"
        static let action = "mock_action"
    }

    /// The page for `request`; `returning` holds the users whose consent to the app group stands.
    static func render(request: AuthorizationRequest, world: World, returning: Set<String>, formAction: String)
        -> String
    {
        let hidden = request.parameters.map { PageLayout.hidden($0.0, $0.1) }.joined(separator: "\n")
        let users = world.scenario.users.enumerated().map { index, user in
            userOption(user, checked: index == 0, isReturning: returning.contains(user.key))
        }.joined(separator: "\n")
        let emailChoice =
            request.scopes.contains("email")
            ? """
            <fieldset><legend>Email (first sign-in only)</legend>
            <label><input type="radio" name="\(Field.email)" value="default" checked> As the scenario says for this user</label>
            <label><input type="radio" name="\(Field.email)" value="share"> Share My Email</label>
            <label><input type="radio" name="\(Field.email)" value="hide"> Hide My Email (relay address)</label>
            </fieldset>
            """ : ""
        let requested = request.scopes.isEmpty ? "no name or email" : request.scopes.joined(separator: " and ")
        let body = """
            <h1>Sign in with Apple</h1>
            <p>Use your Apple Account to sign in to <strong>\(request.client.id.htmlEscaped)</strong>. It asks for \(requested.htmlEscaped).</p>
            <form method="post" action="\(formAction.htmlEscaped)">
            \(hidden)
            <fieldset><legend>Apple Account (scenario “\(world.scenario.name.htmlEscaped)”)</legend>
            \(users)
            </fieldset>
            \(emailChoice)
            <button type="submit" name="\(Field.action)" value="continue" class="primary">Continue</button>
            <button type="submit" name="\(Field.action)" value="cancel">Cancel</button>
            </form>
            <p class="note">apple-id-mock: tests can skip this page with <code>login_hint=&lt;user key or email&gt;</code>.</p>
            """
        return PageLayout.document(title: "Sign in with Apple", body: body)
    }

    private static func userOption(
        _ user: User, checked: Bool, isReturning: Bool
    ) -> String {
        let name = [user.name?.firstName, user.name?.lastName].compactMap { $0 }.joined(separator: " ")
        let returning =
            isReturning
            ? " · already signed in to this app (no name or email this time)" : ""
        let hides = user.hideEmail ? " · hides email by default" : ""
        let label =
            "\(name.isEmpty ? user.key : name) <\(user.email.isEmpty ? "no email" : user.email)>\(hides)\(returning)"
        return """
            <label><input type="radio" name="\(Field.user)" value="\(user.key.htmlEscaped)"\(checked ? " checked" : "")> \(label.htmlEscaped)</label>
            """
    }
}
