import CoreMetrics
import Metrics
import Prometheus

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The mock's Prometheus metrics (`GET /metrics`), kept with swift-metrics on a registry of this
/// server's own (not the process-wide `MetricsSystem`, so that servers built side by side in one
/// test process count apart).
///
/// Every counter and histogram an Apple call can touch is made here, once, in fixed tables indexed
/// by small numbers: recording a call looks its labels up with string comparisons against those
/// tables and bumps atomics (a histogram takes swift-prometheus's own lock); it builds no string and
/// takes no lock of ours. What the store holds (live grants, pending notifications, the mailbox) is
/// counted when Prometheus scrapes.
final class MockMetrics: Sendable {
    /// The registry the page is written from.
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    /// The store spaces counted as live grants: the registered spaces of codes and tokens the mock
    /// issued (not the markers of spent ones).
    static let grantSpaces = Spaces.registered.filter { $0.keys == .issuedValues && !$0.holdsMarkers }.map(\.name)

    /// Latency buckets of Apple calls and store steps.
    static let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
    ]

    private let calls: [CoreMetrics.Counter]
    private let callLatency: [CoreMetrics.Timer]
    private let issued: [CoreMetrics.Counter]
    private let attempts: [CoreMetrics.Counter]
    private let storeStep: [CoreMetrics.Timer]
    private let grants: [CoreMetrics.Gauge]
    private let notifications: [CoreMetrics.Gauge]
    private let mail: [CoreMetrics.Gauge]
    private let waitingReads: CoreMetrics.Gauge

    /// The steps whose latency is measured.
    enum Step: Int, CaseIterable {
        /// A rule step on the session (codes, tokens, consents, …).
        case session
        /// A batch of journal entries written.
        case journal

        var label: String {
            switch self {
            case .session: "session"
            case .journal: "journal"
            }
        }
    }

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.buckets
        self.factory = factory
        var calls: [CoreMetrics.Counter] = []
        var latency: [CoreMetrics.Timer] = []
        for endpoint in EndpointLabel.allCases.map(\.rawValue) {
            for grantType in GrantTypeLabel.allCases.map(\.rawValue) {
                latency.append(
                    CoreMetrics.Timer(
                        label: "appleidmock_apple_call_duration_seconds",
                        dimensions: [("endpoint", endpoint), ("grant_type", grantType)], factory: factory))
                for outcome in CallOutcomeLabel.allCases.map(\.rawValue) {
                    calls.append(
                        CoreMetrics.Counter(
                            label: "appleidmock_apple_calls_total",
                            dimensions: [("endpoint", endpoint), ("grant_type", grantType), ("outcome", outcome)],
                            factory: factory))
                }
            }
        }
        self.calls = calls
        self.callLatency = latency
        issued = IssuedKindLabel.allCases.map {
            CoreMetrics.Counter(
                label: "appleidmock_issued_total", dimensions: [("kind", $0.rawValue)], factory: factory)
        }
        attempts = AttemptOutcomeLabel.allCases.map {
            CoreMetrics.Counter(
                label: "appleidmock_notification_attempts_total", dimensions: [("outcome", $0.rawValue)],
                factory: factory)
        }
        storeStep = Step.allCases.map {
            CoreMetrics.Timer(
                label: "appleidmock_store_step_duration_seconds", dimensions: [("step", $0.label)], factory: factory)
        }
        grants = Self.grantSpaces.map {
            CoreMetrics.Gauge(label: "appleidmock_live_grants", dimensions: [("kind", $0)], factory: factory)
        }
        notifications = NotificationRecord.Status.allCases.map {
            CoreMetrics.Gauge(
                label: "appleidmock_notifications", dimensions: [("status", $0.rawValue)], factory: factory)
        }
        waitingReads = CoreMetrics.Gauge(label: "appleidmock_waiting_reads", factory: factory)
        mail = MailboxOutcomeLabel.allCases.map {
            CoreMetrics.Gauge(
                label: "appleidmock_mailbox_messages", dimensions: [("outcome", $0.rawValue)], factory: factory)
        }
    }

    // MARK: Recording

    /// An Apple call answered: its labels, how long it took, and what it handed out.
    func appleCall(
        endpoint: String, grantType: String?, outcome: JournalOutcome, duration: Duration, issued: [String: String]
    ) {
        let pair = EndpointLabel(endpoint).position * GrantTypeLabel.allCases.count + GrantTypeLabel(grantType).position
        calls[pair * CallOutcomeLabel.allCases.count + CallOutcomeLabel(outcome).position].increment()
        callLatency[pair].record(duration: duration)
        for kind in issued.keys {
            if let label = IssuedKindLabel(rawValue: kind) { self.issued[label.position].increment() }
        }
    }

    /// A notification attempt ended (delivered: the receiver answered 2xx).
    func notificationAttempt(delivered: Bool) {
        attempts[AttemptOutcomeLabel(delivered: delivered).position].increment()
    }

    /// How long a store step took.
    func storeStep(_ step: Step, _ duration: Duration) {
        storeStep[step.rawValue].record(duration: duration)
    }

    // MARK: Scraping

    /// What the store holds now, set on the gauges before the page is written.
    struct Holdings: Sendable {
        /// Entries per grant space.
        var grants: [String: Int] = [:]
        /// Notifications per status.
        var notifications: [NotificationRecord.Status: Int] = [:]
        /// Mailbox records per outcome.
        var mail: [MailboxOutcomeLabel: Int] = [:]
        /// Control-plane reads waiting on this replica (`waitSeconds`).
        var waitingReads = 0
    }

    /// The page in Prometheus's text format, with the gauges set from `holdings`.
    func page(_ holdings: Holdings) -> String {
        for (index, space) in Self.grantSpaces.enumerated() { grants[index].record(holdings.grants[space] ?? 0) }
        for (index, status) in NotificationRecord.Status.allCases.enumerated() {
            notifications[index].record(holdings.notifications[status] ?? 0)
        }
        for outcome in MailboxOutcomeLabel.allCases { mail[outcome.position].record(holdings.mail[outcome] ?? 0) }
        waitingReads.record(holdings.waitingReads)
        return registry.emitToString()
    }
}
