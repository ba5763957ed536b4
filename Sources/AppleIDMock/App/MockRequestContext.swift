import Hummingbird
import NIOCore

/// The context of every request at the edge: Hummingbird's, plus the connection (so a fault rule can
/// drop it without an answer), what the request said of its namespace, the world chosen for it and
/// the state in force (read once when the request starts) and, on Apple's endpoints, the draft of
/// the request's journal entry. Handlers get `WorldRequestContext`, made from this one once the
/// world is chosen.
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
    /// The world of the request's namespace, set once by what chooses it (`NamespaceMiddleware`, or
    /// for Apple's calls `AppleCallMiddleware` once it read what the call carries); `nil` until then.
    var world: MockState?
    /// Whether `AppleCallMiddleware` runs this `/auth/*` call again should a reset land before its
    /// step (`SessionChanged`); on its last run, the error middleware answers it.
    var mayRunAgain = false

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
