import Hummingbird
import NIOCore

/// The context a route's handler gets: the edge's context (`MockRequestContext`) once the
/// request's namespace is chosen, with that namespace's world, never optional. Hummingbird makes it
/// from the edge's context as the request enters a route group (`RouterGroup.group(context:)`), so
/// a handler cannot answer in a world nobody chose: controllers hold no world, they read this one.
///
/// On Apple's endpoints a handler may run more than once for one call (`AppleCallMiddleware`
/// runs it again when a reset, a scenario switch or another replica's change landed before its
/// store step): everything a handler does before that step commits must stay inside the store
/// (no notification, no mail, no log of an outcome), and what it answers must come from that step.
struct WorldRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's connection.
    let channel: any Channel
    /// The world of the request's namespace.
    let world: MockState
    /// The state in force when the request started, due events fired (`nil` if the store could
    /// not be read: the handler reads it again and reports the outage).
    let active: ActiveScenario?
    /// What an `/auth/*` call learns for its journal entry (`nil` elsewhere).
    let journal: JournalDraft?
    /// The query string's and the form body's parameters as `AppleCallMiddleware` read them.
    let parsedQuery: FormParameters?
    let parsedBody: FormParameters?
    /// Whether reading the body failed in `AppleCallMiddleware`.
    let bodyUnreadable: Bool
    /// What the request said of its namespace (for links under its `/ns/{name}` prefix).
    let namespaceRequest: NamespaceRequest

    init(context: MockRequestContext) throws {
        guard let world = context.world else { throw NamespaceNotChosen() }
        coreContext = context.coreContext
        channel = context.channel
        self.world = world
        active = context.active
        journal = context.journal
        parsedQuery = context.parsedQuery
        parsedBody = context.parsedBody
        bodyUnreadable = context.bodyUnreadable
        namespaceRequest = context.namespaceRequest
    }

    /// The state in force for this request: as read when it started, or read now.
    func current() async throws -> ActiveScenario {
        try await world.current(or: active)
    }
}

/// A route was mounted outside the middleware that chooses the namespace: a bug in `buildRouter`,
/// answered as an internal error rather than in a world nobody chose.
struct NamespaceNotChosen: Error, CustomStringConvertible {
    var description: String { "no namespace was chosen for this request" }
}
