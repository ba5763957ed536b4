import Logging

/// A log handler that keeps its metadata as a plain dictionary and hands it to the handler it
/// wraps only when a message is logged. Hummingbird sets a request id on the logger of every
/// request; swift-log's `StreamLogHandler` formats its whole metadata again on every such change,
/// which costs each request time even when nothing is logged at the server's level.
struct DeferredMetadataLogHandler: LogHandler {
    private var wrapped: any LogHandler
    var metadata: Logger.Metadata

    /// Wraps `handler`, taking over its metadata.
    init(wrapping handler: any LogHandler) {
        wrapped = handler
        metadata = handler.metadata
        wrapped.metadata = [:]
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var handler = wrapped
        handler.metadata = metadata
        handler.log(event: event)
    }
}

extension Logger {
    /// A logger labelled `label`, made by the logging system's factory, whose metadata changes cost
    /// no formatting (`DeferredMetadataLogHandler`).
    static func deferringMetadata(label: String) -> Logger {
        let handler = Logger(label: label).handler
        return Logger(label: label, factory: { _ in DeferredMetadataLogHandler(wrapping: handler) })
    }
}
