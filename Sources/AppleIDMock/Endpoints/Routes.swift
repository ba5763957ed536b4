import Hummingbird
import Logging

/// Builds the mock's router: every route, and the middleware of each group, in one place.
///
/// - `/auth/*` (Apple's endpoints): `AppleCallMiddleware` (parameters, fault rules, the journal
///   draft in the context, the journal entry) around `AppleErrorMiddleware` (Apple's error answers);
///   `Server: Apple` on these and on discovery.
/// - `/__admin/*` (the control plane): `AdminAccessMiddleware` (token, origin, content type) around
///   `AdminErrorMiddleware` (the control plane's error answers).
/// - Every request first gets its namespace's world (`NamespaceMiddleware`, or for Apple's calls
///   `AppleCallMiddleware`), whose due scheduled events fire first; one no route matched still gets
///   its group's outer middleware (`UnmatchedRouteMiddleware`). Handlers get that world in their
///   context (`WorldRequestContext`, made as the request enters `inWorld()`); controllers hold none.
///   A `/ns/{name}` prefix is gone before the router runs (`NamespacePrefixResponder`).
///
/// Handlers run on their connection's event loop (`HTTPServerBuilder.loopBoundHTTP1`): nothing
/// reached from a handler may block it. Blocking work (RSA key generation) runs on
/// `NIOThreadPool.singleton`.
func buildRouter(services: MockServices) -> Router<MockRequestContext> {
    let router = Router(context: MockRequestContext.self)
    router.add(middleware: RouteGroupMiddleware())
    // The log level is fixed at start-up; below debug the middleware would only pass each request on.
    if services.logger.logLevel <= .debug { router.add(middleware: RequestLogMiddleware(logger: services.logger)) }
    router.add(middleware: NamespaceMiddleware(namespaces: services.namespaces))
    let logger = services.logger
    let appleCall = AppleCallMiddleware(namespaces: services.namespaces, journal: services.journal, logger: logger)
    let adminAccess = AdminAccessMiddleware(access: services.adminAccess, logger: logger)
    router.add(middleware: UnmatchedRouteMiddleware(appleCall: appleCall, adminAccess: adminAccess))
    let health = Responses.encodedJSON(["status": "ok"])
    router.get(RouterPath(ServerPath.health)) { _, _ in Responses.appleJSON(body: health) }
    router.head(RouterPath(ServerPath.health)) { _, _ in Responses.appleJSON(body: health).createHeadResponse() }
    // Sign in with Apple JS, at Apple's CDN path (neither group: not an Apple call, not the control plane).
    SignInJSController().addRoutes(to: router)
    // Apple's button images, drawn by the mock (the same: neither group).
    ButtonImageController(logger: logger, images: DrawnButtonImages()).addRoutes(to: router)
    // The attacker's key of conformance runs (neither group: no admin token, not Apple's).
    AttackerController(fetches: services.conformance.attackerFetches).addRoutes(to: router)

    // Outside AppleCallMiddleware, so that the answers of fault rules carry it too.
    let apple = router.group().add(middleware: AppleServerHeaderMiddleware())
    DiscoveryController(address: services.address).addRoutes(to: apple.inWorld())
    let auth = apple.group(RouterPath(ApplePath.group))
        .add(middleware: appleCall)
    AuthorizeController(publicBaseURL: services.publicBaseURL, logger: logger)
        .addRoutes(to: auth.group().add(middleware: AppleErrorMiddleware(answer: .errorPage, logger: logger)).inWorld())
    let api = auth.group().add(middleware: AppleErrorMiddleware(answer: .json, logger: logger)).inWorld()
    KeysController(namespaces: services.namespaces).addRoutes(to: api)
    TokenController(arms: services.conformance.arms).addRoutes(to: api)
    RevokeController(logger: logger).addRoutes(to: api)
    MigrationController().addRoutes(to: api)

    let adminEdge = router.group(RouterPath(AdminPath.group))
        .add(middleware: adminAccess)
        .add(middleware: AdminErrorMiddleware(logger: logger))
    let admin = adminEdge.inWorld()
    DashboardController().addRoutes(to: admin)
    OpenAPIController().addRoutes(to: admin)
    NamespacesController(namespaces: services.namespaces).addRoutes(to: admin)
    ConformanceController(namespaces: services.namespaces, runs: services.conformance, address: services.address)
        .addRoutes(to: admin)
    ScenariosController(logger: logger).addRoutes(to: admin)
    SettingsController().addRoutes(to: admin)
    ClockController().addRoutes(to: admin)
    ResetController().addRoutes(to: admin)
    ConsentsController().addRoutes(to: admin)
    UsersController().addRoutes(to: admin)
    ClientSecretController(keysDirectory: services.keysDirectory).addRoutes(to: admin)
    NativeController().addRoutes(to: admin)
    EventsController(logger: logger).addRoutes(to: admin)
    NotificationsController().addRoutes(to: admin)
    TransfersController(logger: logger).addRoutes(to: admin)
    FaultsController(logger: logger).addRoutes(to: admin)
    KeysAdminController().addRoutes(to: admin)
    JournalController(journal: services.journal).addRoutes(to: admin)
    MintController(journal: services.journal).addRoutes(to: admin)
    MailController(journal: services.journal, mail: services.mail).addRoutes(to: admin)
    // At the root, where Prometheus looks, behind the control plane's guard.
    MetricsController(namespaces: services.namespaces).addRoutes(
        to: router.group().add(middleware: adminAccess).add(middleware: AdminErrorMiddleware(logger: logger)).inWorld())
    return router
}

extension RouterGroup<MockRequestContext> {
    /// The routes of this group, answered in the world chosen for each request (`WorldRequestContext`).
    func inWorld() -> RouterGroup<WorldRequestContext> {
        group(context: WorldRequestContext.self)
    }
}
