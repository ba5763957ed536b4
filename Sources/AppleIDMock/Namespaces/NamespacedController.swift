/// A controller that works in the world of each request's namespace: its routes call it as
/// `self.scoped(context)`, a copy holding the request's world.
protocol NamespacedController {
    /// The world it works in (the default namespace's until scoped).
    var state: MockState { get set }
}

extension NamespacedController {
    /// This controller in the world chosen for the request.
    func scoped(_ context: MockRequestContext) -> Self {
        guard let chosen = context.state, chosen !== state else { return self }
        var copy = self
        copy.state = chosen
        return copy
    }
}
