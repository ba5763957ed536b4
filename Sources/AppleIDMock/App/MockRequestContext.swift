import Hummingbird
import NIOCore

/// The context of every request: Hummingbird's, plus the connection (so a fault rule can drop it
/// without an answer), the state in force (read once when the request starts) and, on Apple's
/// endpoints, the draft of the request's journal entry.
///
/// A request is handled on its connection's event loop (`HTTPServerBuilder.loopBoundHTTP1`): code
/// reached from a handler must not block. Blocking work (RSA key generation) goes to
/// `NIOThreadPool.singleton`.
struct MockRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's connection.
    let channel: any Channel
    /// The state in force when the request started (set by `NamespaceMiddleware`, or for Apple's
    /// calls `AppleCallMiddleware`; `nil` if the store could not be read, so the endpoint reads it
    /// again and reports the outage).
    var active: ActiveScenario?
    /// What an `/auth/*` call learns for its journal entry (set by `AppleCallMiddleware`; `nil`
    /// elsewhere): the user, the client secret's key, why it was refused, what it handed out.
    var journal: JournalDraft?
    /// The query string's and the form body's parameters as `AppleCallMiddleware` read them for an
    /// `/auth/*` call, so the endpoint does not parse them again (`nil`: not read, or malformed, in
    /// which case the endpoint reads them and reports why).
    var parsedQuery: FormParameters?
    var parsedBody: FormParameters?
    /// Whether reading the body failed in `AppleCallMiddleware` (too large, or the client went
    /// away): a body can be read only once, so the endpoint reports it instead of reading again.
    var bodyUnreadable = false
    /// The part of the mock the request's path falls in (set first, by `RouteGroupMiddleware`).
    var routeGroup = RouteGroup.other
    /// What the request said of its namespace before any route ran (`NamespacePrefixResponder`).
    var namespaceRequest = NamespaceRequest()
    /// The world of the request's namespace (`NamespaceMiddleware`, or for Apple's calls
    /// `AppleCallMiddleware` once it read what the call carries); `nil` until chosen.
    var state: MockState?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The state in force for this request: as read when it started, or read now from `state`.
    func active(in state: MockState) async throws -> ActiveScenario {
        try await state.current(or: active)
    }
}
