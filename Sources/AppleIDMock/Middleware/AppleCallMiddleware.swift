import HTTPTypes
import Hummingbird
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Wraps every `/auth/*` call (it is attached to that group): reads the parameters it names (grant
/// type, client, the fingerprints of its secrets), hands the endpoint a journal draft in the request
/// context, applies a fault rule that fires on the call, and records it in the journal once it is
/// answered.
///
/// It is the one place a call runs again, before anything of a run is kept or sent: when a reset or
/// scenario switch landed between reading the state and the call's step on the session
/// (`SessionChanged`: answered as if it came after, so a wiped code is Apple's `invalid_grant`), and
/// on PostgreSQL when the control record the first run was answered on without reading it changed
/// meanwhile (`ControlConfirmation`), and in the world chosen again when its namespace was deleted
/// (`NamespaceGone`). A fault rule counted in one run is not counted again. What a
/// handler must do to be run twice safely: `WorldRequestContext`.
struct AppleCallMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext
    /// Every namespace's world: the call is answered in the one it chooses (`NamespaceChoice`).
    let namespaces: Namespaces
    let journal: JournalRecorder
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = JournalStart()
        // The consent page's POST (`/auth/authorize/consent`) is part of the authorize step.
        let endpointName = context.routeGroup.appleEndpoint ?? ApplePath.group
        var request = request
        var context = context
        let parameters = await Self.parameters(of: &request, context: &context)
        var state: MockState
        do {
            state = try await choose(request, context: context, parameters: parameters)
        } catch let error where !(error is any HTTPResponseError) {
            return try NamespaceMiddleware.refusal(error, group: context.routeGroup)
        }
        let endpoint = FaultRule.Endpoint(rawValue: endpointName)
        // On PostgreSQL the call is first answered on the control record this replica last read;
        // if that record changed meanwhile, it runs again, reading it first (`ControlConfirmation`).
        var confirmation = state.confirmsControlAtCommit ? ControlConfirmation() : nil
        var fault = FaultDecision()
        var runs = 0
        while true {
            runs += 1
            context.mayRunAgain = runs <= Self.rerunsAfterReset
            let run = await self.run(
                request, context: context, state: state, endpoint: endpoint, parameters: parameters,
                confirmation: confirmation, fault: &fault, next: next)
            // The namespace was deleted before or while the call ran: the call is answered as if it
            // came after, in the world chosen now (a code or token of it finds no namespace and gets
            // Apple's `invalid_grant` in the default one; a name makes the namespace anew).
            if case .failure(let error) = run.outcome, let gone = error as? NamespaceGone, context.mayRunAgain {
                do {
                    try await namespaces.forgetIfGone(gone.name)
                    state = try await choose(request, context: context, parameters: parameters)
                } catch let error where !(error is any HTTPResponseError) {
                    return try NamespaceMiddleware.refusal(error, group: context.routeGroup)
                }
                confirmation = state.confirmsControlAtCommit ? ControlConfirmation() : nil
                fault = FaultDecision()
                continue
            }
            if let first = confirmation {
                confirmation = nil
                if case .failure(let error) = run.outcome, error is ControlStale { continue }
                // Unreadable (the database failed, the namespace was deleted): the next run reports it.
                if let used = first.unconfirmed, (try? await state.current())?.control != used { continue }
            }
            if case .failure(let error) = run.outcome, error is SessionChanged, context.mayRunAgain { continue }
            let status: Int
            switch run.outcome {
            case .success(let response): status = Int(response.status.code)
            // The router's 404 or 405, or whatever else a handler let escape: journaled, then passed on.
            case .failure(let error): status = (error as? any HTTPResponseError)?.status.code ?? 500
            }
            record(
                request, endpoint: endpointName, status: status, parameters: parameters, draft: run.draft,
                state: state, active: run.active, started: started)
            return AnsweringNamespace.marked(try run.outcome.get(), answeredIn: state)
        }
    }

    /// The world the call is answered in (`NamespaceChoice.appleCall`).
    private func choose(_ request: Request, context: Context, parameters: FormParameters) async throws -> MockState {
        try await NamespaceChoice.appleCall(
            context.namespaceRequest, parameters: parameters, bearer: RequestReading.bearerToken(request),
            in: namespaces)
    }

    /// How often a call runs again when resets keep landing while it runs (the last run's answer,
    /// `invalid_grant` for a `SessionChanged`, stands).
    static let rerunsAfterReset = 8

    /// Whether a fault rule fires on the call: decided in the first run that counted it, kept for
    /// the runs after (its latency served once).
    struct FaultDecision {
        var decided = false
        var rule: FaultRule?
        var delayed = false
    }

    /// One run of the call in `state`: its due events fired, its answer (or what it threw), the
    /// state it was answered in and its journal draft.
    private func run(
        _ request: Request, context: Context, state: MockState, endpoint: FaultRule.Endpoint?,
        parameters: FormParameters, confirmation: ControlConfirmation?, fault: inout FaultDecision,
        next: (Request, Context) async throws -> Response
    ) async -> (outcome: Result<Response, any Error>, active: ActiveScenario?, draft: JournalDraft) {
        var context = context
        context.world = state
        // A store outage is reported by the handler itself.
        context.active = try? await state.fireDueEvents(confirming: confirmation)
        let draft = JournalDraft()
        context.journal = draft
        if !fault.decided, let endpoint, let active = context.active {
            do {
                fault.rule = try await state.firingFault(
                    endpoint, grantType: parameters.first("grant_type"), clientId: parameters.first("client_id"),
                    in: active)
            } catch let stale as ControlStale {
                return (.failure(stale), context.active, draft)
            } catch {
                // The rules could not be read: the call is answered without them.
            }
            // Decided once a step counted the call against the rules (one names this endpoint): a
            // run answered on a record without them decides again when it runs again.
            fault.decided = active.control.faults.contains { $0.endpoint == endpoint }
        }
        do {
            let response = try await answer(request, context: context, fault: &fault, draft: draft, next: next)
            return (.success(response), context.active, draft)
        } catch {
            return (.failure(error), context.active, draft)
        }
    }

    /// Files the call's journal entry.
    private func record(
        _ request: Request, endpoint: String, status: Int, parameters: FormParameters, draft: JournalDraft,
        state: MockState, active: ActiveScenario?, started: JournalStart
    ) {
        let notes = draft.snapshot
        var fingerprints: [String: String] = [:]
        for pair in parameters.pairs where Fingerprint.secretParameters.contains(pair.name) {
            fingerprints[pair.name] = Fingerprint.of(pair.value)
        }
        if let bearer = RequestReading.bearerToken(request) {
            fingerprints["access_token"] = Fingerprint.of(bearer)
        }
        let outcome = notes.dropped ? .dropped : JournalOutcome(status: status, refusal: notes.refusal?.code)
        let grantType = parameters.first("grant_type")
        let traceparent = request.headers[Self.traceparent].flatMap(TraceContext.valid)
        let elapsed = ContinuousClock.now - started.instant
        state.metrics.appleCall(
            endpoint: endpoint, grantType: grantType, outcome: outcome, duration: elapsed, issued: notes.issued)
        journal.record(
            endpoint, in: state.scope, started: started, mockTime: active?.now ?? started.wallTime, outcome: outcome,
            latencyMilliseconds: elapsed.wholeMilliseconds
        ) {
            $0.method = request.method.rawValue
            $0.grantType = grantType
            $0.clientId = parameters.first("client_id")
            $0.clientSecretKeyId = notes.secretKeyId
            $0.clientSecretTeamId = notes.secretTeamId
            $0.userKey = notes.userKey
            $0.sub = notes.sub
            $0.status = notes.dropped ? nil : status
            $0.reason = notes.refusal?.reason
            $0.fault = notes.fault
            $0.fingerprints = fingerprints.isEmpty ? nil : fingerprints
            $0.issued = notes.issued.isEmpty ? nil : notes.issued
            $0.traceparent = traceparent
        }
    }

    /// The W3C trace context header, kept in the journal entry.
    private static let traceparent = HTTPField.Name(TraceContext.header)!

    /// The answer, with the fault rule that fires on this call (if any) applied.
    private func answer(
        _ request: Request, context: Context, fault: inout FaultDecision, draft: JournalDraft,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let rule = fault.rule else { return try await next(request, context) }
        draft.note(fault: rule.id, dropped: rule.drop)
        logger.notice(
            "fault rule fired",
            metadata: ["idp.fault": .string(rule.id), "idp.endpoint": .string(rule.endpoint.rawValue)])
        if let latency = rule.latencyMilliseconds, latency > 0, !fault.delayed {
            fault.delayed = true
            try? await Task.sleep(for: .milliseconds(latency))
        }
        if rule.drop {
            context.channel.close(mode: .all, promise: nil)
            return Response(status: .serviceUnavailable)
        }
        if let code = rule.error { draft.note(refusal: code, reason: "fault rule \(rule.id)") }
        var response: Response
        if let replacement = FaultAnswer.replacement(for: rule, endpoint: rule.endpoint) {
            response = replacement
        } else {
            response = try await next(request, context)
        }
        if rule.truncate { response = try await FaultAnswer.truncated(response) }
        return response
    }

    /// The call's parameters: the query string and, for a form body, the body (read once and kept for
    /// the endpoint, parsed in `context`). Malformed input yields what could be read; the endpoint
    /// reports the rest.
    private static func parameters(of request: inout Request, context: inout Context) async -> FormParameters {
        let query = try? FormParameters(encoded: request.uri.query ?? "")
        context.parsedQuery = query
        var pairs = query?.pairs ?? []
        let length = request.headers[.contentLength].flatMap(Int.init)
        let hasBody =
            length.map { (1...RequestReading.maximumBodySize).contains($0) }
            ?? (request.headers[.transferEncoding] != nil)
        if RequestReading.isForm(request), hasBody {
            guard let body = try? await request.collectBody(upTo: RequestReading.maximumBodySize) else {
                context.bodyUnreadable = true
                return FormParameters(pairs: pairs)
            }
            if let text = RequestReading.utf8Text(body), let form = try? FormParameters(encoded: text) {
                context.parsedBody = form
                pairs = form.pairs + pairs
            }
        }
        return FormParameters(pairs: pairs)
    }
}
