import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One run under way: its namespace's world, the keys it signs with, the sends whose journal
/// windows are still to be read, and the cases sent since the valid credential last signed in.
struct ConformanceSession {
    let run: ConformanceRun
    let state: MockState
    let runner: ConformanceRunner
    var keys: ConformanceTokens.Keys
    /// When each send since the journal was last read went out, in order: each opens a window of
    /// the journal that the next closes (`ConformanceJournalWindows`); the last is still open.
    var sends: [Date] = []
    /// Results since the last check that the valid credential still signs in.
    private var pending: [ConformanceReport.CaseResult] = []
    private var sentSinceCheck = 0
    /// A client of the world the backend does not accept (`aud-other-client`), if there is one.
    private let sibling: String?
    /// Why `sub-not-bound` cannot be sent, if it cannot.
    private let subNotBoundSkip: String?

    /// A credential as an app or a code exchange carries it.
    struct Credential {
        var values: [String: String]
        var code: String
        var tokenSub: String?
        var claimedSub: String?
    }

    init(run: ConformanceRun, state: MockState, runner: ConformanceRunner) async throws {
        self.run = run
        self.state = state
        self.runner = runner
        keys = try await Self.keys(of: state, attacker: try ConformanceTokens.Attacker(baseURL: run.baseURL))
        let world = try await state.current().world
        sibling = Self.sibling(in: world, config: run.config)
        subNotBoundSkip = Self.subNotBoundSkip(in: world, user: run.config.user)
    }

    var config: ConformanceConfig { run.config }

    /// The run's keys as its namespace publishes them now.
    private static func keys(
        of state: MockState, attacker: ConformanceTokens.Attacker, rotated: SigningKey? = nil
    ) async throws -> ConformanceTokens.Keys {
        let active = try await state.current()
        let published = active.keys.entries.filter { $0.entry.isPublished(at: active.now) }.map(\.key)
        return ConformanceTokens.Keys(
            signing: active.keys.signing, published: published, stranger: try StrangerKey.key(), rotated: rotated,
            attacker: attacker)
    }

    /// Every path, calibrated first, then each case in turn.
    mutating func drive() async throws {
        for path in ConformancePath.allCases {
            guard let target = target(path) else { continue }
            if let unusable = try await calibrate(path, target) {
                for step in plan(path) {
                    switch step {
                    case .skip(let skipped): run.record(skipped)
                    case .send(let testCase, let variant):
                        run.record(result(testCase, variant, path, .inconclusive, observed: "none", note: unusable))
                    }
                }
                continue
            }
            try await sendPlan(path, target)
        }
    }

    /// One step of a path's plan.
    private enum Step {
        /// A case that cannot apply on the path: its SKIPPED result, once whatever its variants.
        case skip(ConformanceReport.CaseResult)
        /// A case's variant to send.
        case send(ConformanceCase, String)
    }

    /// The cases of `path` in the order sent (the rotated key last: later cases sign with it).
    private func plan(_ path: ConformancePath) -> [Step] {
        let cases = config.cases.filter { $0 != .okBaseline }
        let ordered = cases.filter { $0 != .okRotatedKey } + cases.filter { $0 == .okRotatedKey }
        return ordered.flatMap { testCase -> [Step] in
            if let reason = skipReason(testCase, on: path) {
                return [.skip(result(testCase, "", path, .skipped, observed: "none", note: reason))]
            }
            // A notification's forgery has one form; ok-second-client is sent for each other client id.
            let variants =
                path == .notifications
                ? [""]
                : testCase == .okSecondClient
                    ? config.otherClientIds : ConformanceTokens.variants(of: testCase, keys: keys)
            return variants.map { .send(testCase, $0) }
        }
    }

    private mutating func sendPlan(_ path: ConformancePath, _ target: Target) async throws {
        var locked = false
        for step in plan(path) {
            guard case .send(let testCase, let variant) = step else {
                if case .skip(let skipped) = step { pending.append(skipped) }
                continue
            }
            if locked {
                run.record(
                    result(
                        testCase, variant, path, .inconclusive, observed: "none",
                        note: "not sent: the backend stopped accepting the valid credential (locked out?)"))
                continue
            }
            if testCase == .okRotatedKey {
                let kid = try await state.rotateKey(graceSeconds: nil, publish: true)
                let active = try await state.current()
                let rotated = active.keys.entries.first { $0.entry.kid == kid }?.key
                // Only this case signs with the new key: the checks and the paths after it keep
                // the keys the backend knew when the run began.
                let (signing, published) = (keys.signing, keys.published)
                keys = try await Self.keys(of: state, attacker: keys.attacker, rotated: rotated)
                (keys.signing, keys.published) = (signing, published)
            }
            pending.append(try await send(testCase, variant: variant, on: path, target))
            sentSinceCheck += 1
            if sentSinceCheck >= ConformanceRunner.recheckEvery {
                locked = try await !stillAccepts(path, target)
            }
        }
        if !locked, sentSinceCheck > 0 { _ = try await stillAccepts(path, target) }
        for result in await withJournal(pending) { run.record(result) }
        pending = []
    }

    /// Re-sends the valid credential; records the results since the last check, as they are when it
    /// signs in, and with their refusals made `INCONCLUSIVE` when it does not.
    private mutating func stillAccepts(_ path: ConformancePath, _ target: Target) async throws
        -> Bool
    {
        let check = try await send(.okBaseline, variant: "", on: path, target)
        let accepted = check.verdict == .pass
        // Read now: the check's send closed the window of the last case.
        for var result in await withJournal(pending) {
            if !accepted, result.observed == "rejected" {
                result.verdict = .inconclusive
                result.note = "refused, but the valid credential was refused right after (locked out?): " + result.note
            }
            run.record(result)
        }
        pending = []
        sentSinceCheck = 0
        return accepted
    }

    /// Why `testCase` cannot apply on `path` with this config, if it cannot.
    private func skipReason(_ testCase: ConformanceCase, on path: ConformancePath) -> String? {
        if !testCase.paths.contains(path) {
            return
                "cannot arrive on the \(path.rawValue) path (\(testCase.paths.map(\.rawValue).sorted().joined(separator: ", ")) only)"
        }
        switch testCase {
        case .okSecondClient where config.otherClientIds.isEmpty:
            return "the config names no otherClientIds"
        case .nonceWrong, .nonceAbsentSupported, .nonceSchemeConfusion:
            return path == .native && config.nonce == .none
                ? "the config says the app sends no nonce (nonce: none)" : nil
        case .okNativeHashedNonce:
            return config.nonce == .sha256Hex ? nil : "the config says the app does not hash its nonce"
        case .okKidNotFirst, .kidAbsentMulti:
            return keys.published.count < 2 ? "the JWKS holds one key" : nil
        case .audOtherClient where path != .notifications:
            return sibling == nil ? "the scenario has no client the backend does not accept" : nil
        case .subNotBound: return subNotBoundSkip
        default: return nil
        }
    }

    /// Where a path's credential goes: a request the config templates, the browser's sign-in, or
    /// a notification posted to the backend's receiver.
    enum Target {
        case request(ConformanceConfig.Endpoint)
        case browser(ConformanceConfig.Web)
        case receiver(ConformanceConfig.Notifications)

        var accepted: ConformanceConfig.Acceptance? {
            switch self {
            case .request(let endpoint): endpoint.accepted
            case .browser(let web): web.accepted
            case .receiver(let notifications): notifications.accepted
            }
        }
    }

    private func target(_ path: ConformancePath) -> Target? {
        switch path {
        case .native: config.native.map(Target.request)
        case .exchange: config.exchange.map(Target.request)
        case .web: config.web.map(Target.browser)
        case .notifications: config.notifications.map(Target.receiver)
        }
    }

    /// Makes the case's credential, sends it, reads the answer and what the backend did meanwhile.
    mutating func send(
        _ testCase: ConformanceCase, variant: String, on path: ConformancePath, _ target: Target
    ) async throws -> ConformanceReport.CaseResult {
        let started = Date()
        sends.append(started)
        let probe = testCase == .jwsMalformed && variant == ConformanceTokens.calibrationVariant
        var sent: ConformanceReport.SentRequest?
        var received: ConformanceReport.Received
        var answer: ConformanceAcceptance.Answer?
        var subs: (token: String?, claimed: String?) = (nil, nil)
        switch target {
        case .request(let endpoint):
            let credential = try await credential(testCase, variant: variant, on: path)
            defer { if path == .exchange || probe { runner.arms.disarm(credential.code) } }
            (sent, received, answer) = await runner.send(endpoint, values: credential.values)
            if testCase == .tokenReplay, answer != nil {
                (sent, received, answer) = await runner.send(endpoint, values: credential.values)
            }
            subs = (credential.tokenSub, credential.claimedSub)
        case .browser(let web):
            do {
                (sent, received, answer) = try await signIn(testCase, variant: variant, web)
            } catch let skip as ConformanceNotApplicable {
                return result(testCase, variant, path, .skipped, observed: "none", note: skip.description)
            }
        case .receiver(let notifications):
            let post = probe ? Self.notJWS(to: notifications) : try await notification(testCase, to: notifications)
            (sent, received, answer) = await runner.send(post, values: [:])
        }
        let acceptance = target.accepted ?? config.accepted
        let seen = ConformanceJudge.Seen(
            reading: answer.map { ConformanceAcceptance.read($0, by: acceptance) },
            error: received.error, tokenSub: subs.token, claimedSub: subs.claimed, status: received.status,
            readsUser: acceptance.userPointer != nil)
        let (verdict, observed, note) = ConformanceJudge.verdict(
            testCase, on: path, seen, knownFindings: config.knownFindings)
        var result = result(testCase, variant, path, verdict, observed: observed, note: note)
        result.request = sent
        result.response = received
        result.curl = sent.map(ConformanceRunner.curl)
        // Its journal is read once a later send closed its window (`withJournal`).
        result.sentAt = started
        return result
    }

    /// The web path: the backend's sign-in started, answered with the case's callback (its
    /// id_token, and the same in the token response of its code), and its redirects followed.
    private func signIn(_ testCase: ConformanceCase, variant: String, _ web: ConformanceConfig.Web) async throws -> (
        ConformanceReport.SentRequest?, ConformanceReport.Received, ConformanceAcceptance.Answer?
    ) {
        var browser = ConformanceBrowser(client: ConformanceRunner.client)
        var armed: String?
        defer { if let armed { runner.arms.disarm(armed) } }
        do {
            let start = web.start
            let ask = try await browser.start(start)
            let active = try await state.current()
            try Self.check(ask, world: active.world, origins: web.allowedOrigins)
            if testCase == .cHashBad, !ask.wantsIdToken {
                throw ConformanceNotApplicable(
                    "the sign-in asks for response_type=code: no id_token comes to the callback")
            }
            if [.nonceWrong, .nonceAbsentSupported].contains(testCase), ask.nonce == nil {
                throw ConformanceNotApplicable("the backend's sign-in sends no nonce")
            }
            let world = active.world
            guard let client = world.clients[ask.clientId], let user = world.users[config.user] else {
                throw ConformanceBrowserError(
                    "the sign-in asks for client_id \(ask.clientId), which the run's scenario does not have")
            }
            let nonce = ask.nonce
            let scopes = ask.scopes.filter { ["name", "email"].contains($0) }
            let outcome = try await CodeIssuance.issue(
                .init(
                    userKey: user.key, client: client, scopes: scopes, hidesEmail: user.hideEmail,
                    redirectUri: ask.redirectUri, nonce: nonce),
                state: state, active: active)
            // Web nonces travel as they are.
            let context = tokenContext(active, rawNonce: nonce, scheme: .raw)
            var fields = [("code", outcome.code)]
            if ask.wantsIdToken {
                let token = try caseToken(
                    testCase, variant: variant, outcome, client: client, nonce: nonce,
                    source: .authorize(code: outcome.code), active: active, context: context)
                fields.append(("id_token", token))
            }
            let state =
                testCase == .stateBad && variant == "forged" ? "forged-" + Self.randomNonce().prefix(16) : ask.state
            if let state { fields.append(("state", String(state))) }
            if outcome.isFirst, !outcome.consent.scopes.isEmpty {
                fields.append(("user", Self.firstAuthorization(outcome, user: user, client: client)))
            }
            // The token response carries the same defect; with a defect of the front channel alone
            // (c_hash, state) it is the valid token, signed as the run signs.
            let (inResponse, responseVariant) =
                [.stateBad, .cHashBad].contains(testCase) ? (ConformanceCase.okBaseline, "") : (testCase, variant)
            runner.arms.arm(
                outcome.code, .init(testCase: inResponse, variant: responseVariant, keys: keys, context: context))
            armed = outcome.code
            if testCase == .stateBad, variant == "other-browser" {
                // Login CSRF: this sign-in's code and state, posted in a victim's browser that
                // started a sign-in of its own.
                var victim = ConformanceBrowser(client: ConformanceRunner.client)
                _ = try await victim.start(start)
                browser = victim
            }
            let (sent, last) = try await browser.answer(ask, fields: fields, within: web.allowedOrigins)
            let answer = ConformanceAcceptance.Answer(
                status: last.status, headers: last.headers, body: last.body, finalURL: last.url,
                cookiesSet: browser.cookiesSet)
            return (sent, .init(status: last.status, body: String(last.body.prefix(2_000))), answer)
        } catch let skip as ConformanceNotApplicable {
            throw skip
        } catch {
            return (nil, .init(error: "\(error)"), nil)
        }
    }

    /// Refuses to go on with a sign-in Apple would not serve: the backend's authorize request
    /// checked by the authorize endpoint's own rules in the run's world (its `redirect_uri`
    /// registered for its client, as the run's namespace registers it), and a callback outside the
    /// origins the config allows.
    static func check(_ ask: ConformanceBrowser.AuthorizeAsk, world: World, origins: Set<String>) throws {
        do {
            _ = try AuthorizationRequest.parse(
                FormParameters(pairs: ask.parameters), world: world, alsoRegistered: [ask.redirectUri])
        } catch {
            throw ConformanceBrowserError(
                "Apple's authorize endpoint refuses the backend's sign-in (\(ask.url)): \(error.code): \(error.logReason ?? error.description ?? "")"
            )
        }
        let callback = ConformanceBrowser.origin(of: ask.redirectUri)
        guard origins.contains(callback) else {
            throw ConformanceBrowserError(
                "the backend's redirect_uri \(ask.redirectUri) is outside the start URL's origin: name \(callback) in web.origins to let the run post the callback there"
            )
        }
    }

    /// The post of `testCase`'s notification to the receiver: `{"payload": jws}` as Apple posts it,
    /// signed with the run's key (or forged as the case says).
    private func notification(_ testCase: ConformanceCase, to receiver: ConformanceConfig.Notifications)
        async throws -> ConformanceConfig.Endpoint
    {
        guard let appGroupId = receiver.appGroupId, let notification = testCase.notification else {
            throw ControlRefusal.notApplicable("\(testCase.rawValue) posts no notification")
        }
        let defect: NotificationForgery.Defect? =
            switch notification {
            case .valid: nil
            case .forged(let defect): defect
            }
        let active = try await state.current()
        // Another app's notification is addressed to no client id the backend accepts.
        let minted = try NotificationForgery.make(
            kind: receiver.type, userKey: config.user, appGroupId: appGroupId, defect: defect, world: active.world,
            signedWith: keys.signing, now: active.now,
            foreignAudienceExcept: Set([config.clientId] + config.otherClientIds))
        let body = String(decoding: try JSONEncoder().encode(["payload": minted.token]), as: UTF8.self)
        return ConformanceConfig.Endpoint(
            url: receiver.url, method: "POST", headers: [("Content-Type", "application/json")], body: body,
            accepted: receiver.accepted)
    }

    /// The calibration's post to the receiver: a payload that is not a JWS at all.
    private static func notJWS(to receiver: ConformanceConfig.Notifications) -> ConformanceConfig.Endpoint {
        ConformanceConfig.Endpoint(
            url: receiver.url, method: "POST", headers: [("Content-Type", "application/json")],
            body: #"{"payload":"not-a-jws"}"#, accepted: receiver.accepted)
    }

    /// What a case's token depends on besides its claims, at `active`'s instant.
    private func tokenContext(_ active: ActiveScenario, rawNonce: String?, scheme: ConformanceConfig.NonceScheme)
        -> ConformanceTokens.Context
    {
        ConformanceTokens.Context(
            now: Int(active.now.timeIntervalSince1970), lifetime: active.world.settings.idTokenLifetimeSeconds,
            siblingClient: sibling ?? "com.attacker.app", rawNonce: rawNonce, nonceScheme: scheme)
    }

    /// A result without a request.
    func result(
        _ testCase: ConformanceCase, _ variant: String, _ path: ConformancePath, _ verdict: ConformanceReport.Verdict,
        observed: String, note: String
    ) -> ConformanceReport.CaseResult {
        ConformanceReport.CaseResult(
            id: testCase.rawValue, path: path.rawValue, variant: variant.isEmpty ? nil : variant, verdict: verdict,
            expected: testCase.expected, observed: observed, request: nil, response: nil, journal: [],
            why: testCase.why(on: path), note: note, curl: nil)
    }

    /// The credential of `testCase`: a real code of the run's namespace, and for the native path
    /// the identity token the case makes from the claims Apple would issue with it; on the exchange
    /// path the code is armed so the token endpoint answers with the case's token.
    private func credential(_ testCase: ConformanceCase, variant: String, on path: ConformancePath) async throws
        -> Credential
    {
        let active = try await state.current()
        let world = active.world
        let clientId = testCase == .okSecondClient && !variant.isEmpty ? variant : config.clientId
        guard let client = world.clients[clientId], let user = world.users[config.user] else {
            throw ControlRefusal.notFound("client \(clientId) or user \(config.user) is not in the run's scenario")
        }
        let withNonce = path == .native && config.nonce != .none && testCase != .nonceAbsentUnsupported
        let rawNonce = withNonce ? Self.randomNonce() : nil
        let tokenNonce = ConformanceTokens.tokenNonce(raw: rawNonce, scheme: config.nonce)
        let outcome = try await CodeIssuance.issue(
            .init(
                userKey: user.key, client: client, scopes: ["name", "email"], hidesEmail: user.hideEmail,
                redirectUri: nil, nonce: tokenNonce),
            state: state, active: active)
        let context = tokenContext(active, rawNonce: rawNonce, scheme: config.nonce)
        let sub = world.subject(of: user, teamId: client.teamId)
        var values: [String: String] = ["authorizationCode": outcome.code, "userIdentifier": sub]
        if let rawNonce { values["rawNonce"] = rawNonce }
        let identity = outcome.world.emailIdentity(of: user, consent: outcome.consent, teamId: client.teamId)
        if let email = identity?.email { values["email"] = email }
        if outcome.isFirst { values["user"] = Self.firstAuthorization(outcome, user: user, client: client) }
        var claimedSub: String?
        if testCase == .subNotBound, let other = world.scenario.users.first(where: { $0.key != user.key }) {
            claimedSub = world.subject(of: other, teamId: client.teamId)
            values["userIdentifier"] = claimedSub
        }
        switch path {
        case .native:
            let source: IdentityTokenFactory.Source =
                client.kind == .app ? .native(code: outcome.code) : .authorize(code: outcome.code)
            values["identityToken"] = try caseToken(
                testCase, variant: variant, outcome, client: client, nonce: tokenNonce, source: source,
                active: active, context: context)
            if testCase == .jwsMalformed, variant == ConformanceTokens.calibrationVariant {
                // The calibration's code gives no valid token either, to a backend that exchanges it.
                runner.arms.arm(outcome.code, .init(testCase: testCase, variant: variant, keys: keys, context: context))
            }
        case .exchange:
            runner.arms.arm(outcome.code, .init(testCase: testCase, variant: variant, keys: keys, context: context))
        case .web, .notifications:
            // Made by `signIn` and `notification(_:to:)`, not from a code of this kind.
            break
        }
        return Credential(values: values, code: outcome.code, tokenSub: sub, claimedSub: claimedSub)
    }

    /// Why `sub-not-bound` cannot be sent for `user` in `world`, if it cannot: the body names another
    /// user of the scenario.
    static func subNotBoundSkip(in world: World, user: String) -> String? {
        world.scenario.users.contains { $0.key != user }
            ? nil : "the scenario has one user: there is no other user for the body to name"
    }

    /// A client of `world` that the backend does not accept: another app group's first.
    static func sibling(in world: World, config: ConformanceConfig) -> String? {
        guard let own = world.clients[config.clientId] else { return nil }
        let accepted = Set([config.clientId] + config.otherClientIds)
        let others = world.clients.values.filter { !accepted.contains($0.id) }.sorted { $0.id < $1.id }
        return (others.first { $0.appGroupId != own.appGroupId } ?? others.first)?.id
    }

    /// The case's token, made from the claims Apple issues with `outcome`'s code from `source`.
    private func caseToken(
        _ testCase: ConformanceCase, variant: String, _ outcome: CodeIssuance.Issued, client: World.Client,
        nonce: String?, source: IdentityTokenFactory.Source, active: ActiveScenario,
        context: ConformanceTokens.Context
    ) throws -> String {
        let issued = try outcome.identityToken(client: client, nonce: nonce, source: source, active: active)
        guard case .object(let claims) = try JSONValue.parse(try TokenMinter.encode(issued.claims)) else {
            throw ConformanceBrowserError("the issued claims are not an object")
        }
        return try ConformanceTokens.token(testCase, variant: variant, issued: claims, keys: keys, context: context)
    }

    /// The first authorization's `user` JSON as Apple hands it over with the code.
    private static func firstAuthorization(_ outcome: CodeIssuance.Issued, user: User, client: World.Client) -> String {
        let identity = outcome.world.emailIdentity(of: user, consent: outcome.consent, teamId: client.teamId)
        return FirstAuthorizationUser(
            name: outcome.consent.scopes.contains("name") ? user.name : nil, email: identity?.email
        ).jsonText
    }

    /// 32 random bytes in hex: a raw nonce as an app makes one.
    private static func randomNonce() -> String {
        Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).lowercaseHex
    }
}
