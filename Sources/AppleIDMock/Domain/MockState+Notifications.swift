#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The notification outbox on the state: filing, listing, redelivery, and the delivery leases.
extension MockState {
    // MARK: - Notifications

    /// Files notifications for `drafts` (unsigned: they are signed when sent); returns their ids.
    func enqueue(
        _ drafts: [NotificationDraft], world: World, now: Date, epoch: Int, transaction: any StateTransaction
    ) async throws -> [String] {
        var ids: [String] = []
        for draft in drafts {
            guard let group = world.appGroups[draft.appGroupId] else { continue }
            let claims = NotificationClaims(
                draft: draft, audience: group.primaryBundleId, now: now, settings: world.settings)
            let record = NotificationRecord(
                id: claims.jti, appGroupId: group.id, url: group.notificationUrl,
                type: draft.kind.notificationType(world.settings), sub: draft.sub, claims: claims, payload: nil,
                createdAt: now,
                status: group.notificationUrl == nil ? .noURL : .pending, attempts: [], nextAttemptAt: nil, lease: nil,
                epoch: epoch)
            try await transaction.put(Spaces.outbox, record.id, record, index: record.index)
            ids.append(record.id)
        }
        if !ids.isEmpty { try await transaction.prune(Spaces.outbox, keep: world.settings.historyLimit) }
        return ids
    }

    /// Every notification in the outbox, oldest first.
    func notifications() async throws -> [NotificationRecord] {
        try await store.transaction { try await $0.list(Spaces.outbox).map(\.value) }
    }

    /// One notification.
    func notification(_ id: String) async throws -> NotificationRecord? {
        try await store.transaction { try await $0.get(Spaces.outbox, id) }
    }

    /// Queues a notification for delivery again (keeping its attempt history).
    func redeliver(_ id: String) async throws -> NotificationRecord {
        try await store.transaction { transaction in
            guard var record = try await transaction.get(Spaces.outbox, id) else {
                throw ControlRefusal.notFound("no notification \"\(id)\"")
            }
            guard record.url != nil else {
                throw ControlRefusal.notApplicable("app group \(record.appGroupId) has no notificationUrl")
            }
            guard record.status != .delivering else {
                throw ControlRefusal.notApplicable("notification \(id) is being delivered right now")
            }
            record.status = .pending
            record.nextAttemptAt = nil
            try await transaction.put(Spaces.outbox, id, record, index: record.index)
            return record
        }
    }

    /// Takes notifications due for delivery under a lease named `claim`.
    /// Takes notifications due for delivery in every namespace, each with its namespace's name.
    func claimDueNotifications(claim: String, lease: Duration, limit: Int) async throws -> [(
        namespace: String, record: NotificationRecord
    )] {
        let now = Date()
        let seconds = Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        return try await store.claimDue(
            Spaces.outbox, now: now, leaseUntil: now.addingTimeInterval(seconds), limit: limit
        ) { record in
            record.status = .delivering
            record.lease = claim
        }.map { (NamespaceScope.namespace(ofStoredSpace: $0.space), $0.value) }
    }

    /// Records a delivery attempt, if the lease `claim` still holds the notification.
    func finishDelivery(
        _ id: String, claim: String, attempt: NotificationRecord.Attempt, payload: String?,
        policy: NotificationRecord.RetryPolicy
    ) async throws {
        try await store.transaction { transaction in
            guard var record = try await transaction.get(Spaces.outbox, id), record.lease == claim else { return }
            record.finish(attempt, payload: payload, policy: policy)
            try await transaction.put(Spaces.outbox, id, record, index: record.index)
        }
    }
}
