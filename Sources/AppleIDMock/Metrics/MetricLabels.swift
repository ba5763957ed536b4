/// A label value of the metrics, one case per value in the order the page lists them: a counter's
/// or gauge's place in its table is its case's place (`position`), never a number kept by hand.
/// Each type stores its `allCases` once (the synthesized one builds an array on every call, and
/// every Apple call reads two of them).
protocol MetricLabel: RawRepresentable<String>, CaseIterable, Equatable where AllCases == [Self] {}

extension MetricLabel {
    /// The case's place in `allCases`: the index of its counter or gauge.
    var position: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

/// The `outcome` of an Apple call: `ok`, Apple's error codes, a dropped connection, or anything else.
enum CallOutcomeLabel: String, MetricLabel {
    case ok
    case invalidRequest = "invalid_request"
    case invalidClient = "invalid_client"
    case invalidGrant = "invalid_grant"
    case unauthorizedClient = "unauthorized_client"
    case unsupportedGrantType = "unsupported_grant_type"
    case invalidScope = "invalid_scope"
    case dropped
    case other

    static let allCases: [CallOutcomeLabel] = [
        .ok, .invalidRequest, .invalidClient, .invalidGrant, .unauthorizedClient, .unsupportedGrantType, .invalidScope,
        .dropped, .other,
    ]

    /// The label of a call answered with `outcome`.
    init(_ outcome: JournalOutcome) {
        switch outcome {
        case .ok: self = .ok
        case .refused(let code):
            self = Self(rawValue: code).flatMap { [.ok, .dropped].contains($0) ? nil : $0 } ?? .other
        case .dropped: self = .dropped
        case .http, .noAnswer, .failed: self = .other
        }
    }
}

/// The `grant_type` of an Apple call: Apple's three, `none` when the call named none, `other`.
enum GrantTypeLabel: String, MetricLabel {
    case authorizationCode = "authorization_code"
    case refreshToken = "refresh_token"
    case clientCredentials = "client_credentials"
    case none
    case other

    static let allCases: [GrantTypeLabel] = [.authorizationCode, .refreshToken, .clientCredentials, .none, .other]

    /// The label of a call that sent `grantType`.
    init(_ grantType: String?) {
        guard let grantType else {
            self = .none
            return
        }
        self = Self(rawValue: grantType).flatMap { [.none, .other].contains($0) ? nil : $0 } ?? .other
    }
}

/// How `/metrics` groups a mailbox record: relayed, dropped or refused (inbound), sent or failed
/// (replies).
enum MailboxOutcomeLabel: String, MetricLabel {
    case relayed, refused, dropped, sent, failed, other

    static let allCases: [MailboxOutcomeLabel] = [.relayed, .refused, .dropped, .sent, .failed, .other]

    /// The label of `record`.
    init(_ record: MailRecord) {
        if record.direction == .reply {
            self = record.outcome == .sent ? .sent : .failed
            return
        }
        switch record.outcome {
        case .relayed: self = .relayed
        case .dropped: self = .dropped
        default: self = .refused
        }
    }
}

/// The `endpoint` of an Apple call: one of Apple's endpoints as fault rules name them (not
/// `notifications`, which the mock posts rather than answers), or `other` for a path none has.
enum EndpointLabel: MetricLabel {
    case apple(FaultRule.Endpoint)
    case other

    static let allCases: [EndpointLabel] =
        FaultRule.Endpoint.allCases.filter { $0 != .notifications }.map(EndpointLabel.apple) + [.other]

    var rawValue: String {
        switch self {
        case .apple(let endpoint): endpoint.rawValue
        case .other: "other"
        }
    }

    init?(rawValue: String) {
        guard let label = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = label
    }

    /// The label of a call to the endpoint the journal names `endpoint`.
    init(_ endpoint: String) {
        self = Self(rawValue: endpoint) ?? .other
    }
}

/// The `kind` of a code or token an answer hands out, as the journal names it.
enum IssuedKindLabel: String, MetricLabel {
    case code
    case accessToken = "access_token"
    case refreshToken = "refresh_token"

    static let allCases: [IssuedKindLabel] = [.code, .accessToken, .refreshToken]
}

/// The `outcome` of a notification attempt: `delivered` (the receiver answered 2xx) or `failed`.
enum AttemptOutcomeLabel: String, MetricLabel {
    case delivered, failed

    static let allCases: [AttemptOutcomeLabel] = [.delivered, .failed]

    /// The label of an attempt that was (or was not) delivered.
    init(delivered: Bool) {
        self = delivered ? .delivered : .failed
    }
}
