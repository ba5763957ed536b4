#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When and where a mail attempt is written down: the mock's clock and the wall clock, the
/// namespace whose mailbox keeps it, and the ids its records take.
struct MailStamp: Sendable, Equatable {
    /// When, on the mock's clock.
    var now: Date
    /// When, on the wall clock.
    var wallTime: Date
    /// The namespace whose mailbox keeps the records.
    var namespace: String
    /// The ids to give: the first names the message (the reply's "queued as", the received
    /// message's key, the first entry's id), then one per recipient.
    var ids: [String]

    /// A stamp with `count` new ids that sort by `wallTime`.
    static func new(now: Date, wallTime: Date, namespace: String, count: Int) -> MailStamp {
        MailStamp(
            now: now, wallTime: wallTime, namespace: namespace,
            ids: (0..<max(1, count)).map { _ in MailRecord.newId(at: wallTime) })
    }

    /// The id at `position`, one made from the first when the stamp has too few.
    func id(_ position: Int) -> String {
        ids.indices.contains(position) ? ids[position] : "\(ids.first ?? "")-\(position)"
    }
}
