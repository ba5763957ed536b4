/// The namespace a request was answered in was deleted before or while it ran (its control record is
/// gone). Never an outage: an Apple call is chosen again and answered as a namespace that never held
/// its grants would answer it (`AppleCallMiddleware`); a page or discovery request is answered again;
/// the control plane answers 404.
struct NamespaceGone: Error, Sendable, CustomStringConvertible {
    /// The namespace that was deleted.
    var name: String

    var description: String {
        "the namespace \"\(name)\" was deleted while this request ran; name it again to make it anew"
    }
}
