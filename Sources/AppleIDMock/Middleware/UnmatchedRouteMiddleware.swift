import Hummingbird

/// Gives a request no route matched (an unknown path, or a known path with another method) the
/// outer middleware of the group its path falls in, before the router's 404: under `/auth` it is
/// journaled as an Apple call (`AppleCallMiddleware`); under `/__admin` it needs the admin token
/// first (`AdminAccessMiddleware`), so a 404 never tells a caller without the token which paths
/// exist. Group middleware itself only wraps the routes of its group. The router's own 404 is the
/// only `HTTPError` a request meets: handlers throw the domain's refusals (`AppleError`,
/// `ControlRefusal`), which the group's error middleware answers.
struct UnmatchedRouteMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext
    let appleCall: AppleCallMiddleware
    let adminAccess: AdminAccessMiddleware

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let notFound: (Request, Context) async throws -> Response = { _, _ in throw error }
            switch context.routeGroup {
            case .apple where context.routeGroup.isAppleCall:
                return try await appleCall.handle(request, context: context, next: notFound)
            case .controlPlane:
                return try await adminAccess.handle(request, context: context, next: notFound)
            default:
                throw error
            }
        }
    }
}
