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
///   its group's outer middleware (`UnmatchedRouteMiddleware`). The controllers answer in that
///   world (`NamespacedController.scoped`). A `/ns/{name}` prefix is gone before the router runs
///   (`NamespacePrefixResponder`).
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
    let state = services.state
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
    ButtonImageController(logger: logger).addRoutes(to: router)

    // Outside AppleCallMiddleware, so that the answers of fault rules carry it too.
    let apple = router.group().add(middleware: AppleServerHeaderMiddleware())
    DiscoveryController(address: services.address, state: state).addRoutes(to: apple)
    let auth = apple.group(RouterPath(ApplePath.group))
        .add(middleware: appleCall)
    AuthorizeController(state: state, publicBaseURL: services.publicBaseURL, logger: logger)
        .addRoutes(to: auth.group().add(middleware: AppleErrorMiddleware(answer: .errorPage, logger: logger)))
    let api = auth.group().add(middleware: AppleErrorMiddleware(answer: .json, logger: logger))
    KeysController(state: state, namespaces: services.namespaces).addRoutes(to: api)
    TokenController(state: state).addRoutes(to: api)
    RevokeController(state: state, logger: logger).addRoutes(to: api)
    MigrationController(state: state).addRoutes(to: api)

    let admin = router.group(RouterPath(AdminPath.group))
        .add(middleware: adminAccess)
        .add(middleware: AdminErrorMiddleware(logger: logger))
    DashboardController().addRoutes(to: admin)
    OpenAPIController().addRoutes(to: admin)
    NamespacesController(namespaces: services.namespaces).addRoutes(to: admin)
    ScenariosController(state: state, logger: logger).addRoutes(to: admin)
    SettingsController(state: state).addRoutes(to: admin)
    ClockController(state: state).addRoutes(to: admin)
    ResetController(state: state).addRoutes(to: admin)
    ConsentsController(state: state).addRoutes(to: admin)
    UsersController(state: state).addRoutes(to: admin)
    ClientSecretController(state: state, keysDirectory: services.keysDirectory).addRoutes(to: admin)
    NativeController(state: state).addRoutes(to: admin)
    EventsController(state: state, logger: logger).addRoutes(to: admin)
    NotificationsController(state: state).addRoutes(to: admin)
    TransfersController(state: state, logger: logger).addRoutes(to: admin)
    FaultsController(state: state, logger: logger).addRoutes(to: admin)
    KeysAdminController(state: state).addRoutes(to: admin)
    JournalController(state: state, journal: services.journal).addRoutes(to: admin)
    MintController(state: state, journal: services.journal).addRoutes(to: admin)
    MailController(state: state, journal: services.journal, mail: services.mail).addRoutes(to: admin)
    // At the root, where Prometheus looks, behind the control plane's guard.
    MetricsController(state: state, namespaces: services.namespaces).addRoutes(
        to: router.group().add(middleware: adminAccess).add(middleware: AdminErrorMiddleware(logger: logger)))
    return router
}
