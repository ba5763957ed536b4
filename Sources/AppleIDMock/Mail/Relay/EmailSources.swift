/// The senders a team registered for Sign in with Apple's email relay ("Sign in with Apple for Email
/// Communication"): whole domains, or single addresses (reference §7, §16). Compared without case.
struct EmailSources: Sendable, Equatable, Codable {
    /// Registered domains, e.g. `example.com` (lowercased).
    var domains: [String] = []
    /// Registered sender addresses, e.g. `noreply@example.org` (lowercased).
    var addresses: [String] = []

    init(domains: [String] = [], addresses: [String] = []) {
        self.domains = domains.map { $0.lowercased() }
        self.addresses = addresses.map { $0.lowercased() }
    }

    /// Whether nothing is registered.
    var isEmpty: Bool { domains.isEmpty && addresses.isEmpty }

    /// Whether `address` may send: its domain is registered, or the address itself.
    func registers(address: String) -> Bool {
        let lowered = address.lowercased()
        return addresses.contains(lowered) || Self.domain(of: lowered).map(registers(domain:)) == true
    }

    /// Whether `domain` is registered.
    func registers(domain: String) -> Bool {
        domains.contains(domain.lowercased())
    }

    /// The part after the last `@`, if any.
    static func domain(of address: String) -> String? {
        guard let at = address.lastIndex(of: "@") else { return nil }
        let domain = address[address.index(after: at)...]
        return domain.isEmpty ? nil : String(domain)
    }
}
