#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where Apple's endpoints are served, relative to their group `/auth` (the router mounts them
/// there), with `absolute(_:)` for clients: one list shared by the router, the kit and the tests.
package enum ApplePath {
    /// The group of Apple's endpoints.
    package static let group = "auth"
    /// Browser sign-in.
    package static let authorize = "authorize"
    /// Where the consent page posts.
    package static let consent = "authorize/consent"
    /// The token endpoint.
    package static let token = "token"
    /// Revocation.
    package static let revoke = "revoke"
    /// The JWKS.
    package static let keys = "keys"
    /// App-transfer migration.
    package static let userMigrationInfo = "usermigrationinfo"
    /// The discovery document (outside the group, as at Apple).
    package static let discovery = "/.well-known/openid-configuration"

    /// `/auth/<name>`.
    package static func absolute(_ name: String) -> String { "/\(group)/\(name)" }
}

/// Where the control plane (not Apple's) is served, relative to its group `/__admin`.
package enum AdminPath {
    /// The group of the control plane.
    package static let group = "__admin"
    package static let scenario = "scenario"
    package static let scenarios = "scenarios"
    package static let settings = "settings"
    package static let clock = "clock"
    package static let consents = "consents"
    package static let clientSecret = "client-secret"
    package static let reset = "reset"
    package static let users = "users"
    package static let events = "events"
    package static let notifications = "notifications"
    package static let notification = "notifications/:id"
    package static let redeliver = "notifications/:id/redeliver"
    package static let conformance = "notifications/conformance"
    package static let transfers = "transfers"
    package static let faults = "faults"
    package static let fault = "faults/:id"
    package static let keys = "keys"
    package static let rotateKey = "keys/rotate"
    package static let key = "keys/:kid"
    package static let journal = "journal"
    /// Verifies the journal: counts with near misses, or a sequence (`JournalController`).
    package static let journalVerify = "journal/verify"
    /// The email relay's mailbox (`Endpoints/Admin/MailController.swift`).
    package static let mail = "mail"
    package static let mailEntry = "mail/:id"
    package static let mailRaw = "mail/:id/raw"
    package static let mailReply = "mail/:id/reply"
    package static let mintIdToken = "mint/id-token"
    package static let mintNotification = "mint/notification"
    package static let nativeAuthorize = "native/authorize"
    package static let credentialState = "native/credential-state"
    /// Backend conformance runs (`Endpoints/Admin/ConformanceController.swift`).
    package static let conformanceRuns = "conformance/runs"
    package static let conformanceRun = "conformance/runs/:id"
    package static let conformanceJUnit = "conformance/runs/:id/junit"
    package static let namespaces = "namespaces"
    package static let namespace = "namespaces/:name"
    package static let openAPI = "openapi.json"
    /// The folder of the dashboard's files (the page itself is the group's root).
    package static let dashboardFolder = "dashboard"
    /// The dashboard's files.
    package static let dashboardFile = "\(dashboardFolder)/:file"

    /// `/__admin/<name>`.
    package static func absolute(_ name: String) -> String { "/\(group)/\(name)" }

    /// `/__admin/<name>` with its `:id` parameter filled in (percent-encoded as a path segment).
    package static func absolute(_ name: String, id: String) -> String {
        absolute(name.replacing(":id", with: PercentEncoding.pathSegment(id)))
    }
}

/// Where backend conformance runs serve the attacker's material that `key-header-injection`'s
/// headers name (`Endpoints/Attacker/AttackerController.swift`): outside the control plane, so no
/// admin token stands between a fooled backend and the attacker's key, and outside Apple's paths,
/// so it is neither in the JWKS nor in the journal.
package enum AttackerPath {
    /// The group of the attacker's material.
    package static let group = "__attacker"
    /// A JWKS holding the attacker's key (`jku`).
    package static let jwks = "/\(group)/jwks"
    /// The attacker's self-signed certificate as PEM (`x5u`: RFC 7515 §4.1.5).
    package static let certificate = "/\(group)/certificate.pem"
}

/// The mock's own paths outside both groups.
package enum ServerPath {
    /// The liveness check.
    package static let health = "/health"
    /// Prometheus metrics, guarded like the control plane (`Endpoints/Admin/MetricsController.swift`).
    package static let metrics = "/metrics"
    /// Sign in with Apple JS and its typings, at Apple's CDN path (any `ll_CC` locale folder).
    package static let signInJSFile = "/appleauth/static/jsapi/appleid/1/:locale/:file"
    /// Apple's button images (on `appleid.cdn-apple.com`): logo and label centred, at chosen
    /// positions from the left, or the logo alone.
    package static let buttonImage = "/appleid/button"
    package static let buttonImageLeft = "/appleid/button/left"
    package static let buttonImageLogo = "/appleid/button/logo"
    /// The script as pages name it (Apple's path on `appleid.cdn-apple.com`).
    package static let signInJS = "/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js"
}
