/// Reading a team's `emailSources` from a scenario file.
extension ScenarioDecoder {
    /// `{ "domains": [...], "addresses": [...] }`: domains without `@`, addresses with exactly one.
    static func emailSources(_ value: JSONValue, at path: JSONPath, reader: inout JSONReader) -> EmailSources {
        guard let members = reader.object(value, at: path, allowed: ["domains", "addresses"]) else {
            return EmailSources()
        }
        func strings(_ name: String, check: (String) -> String?) -> [String] {
            guard let raw = members[name], let items = reader.array(raw, at: path.member(name)) else { return [] }
            var result: [String] = []
            for (position, item) in items.enumerated() {
                let itemPath = path.member(name).index(position)
                guard let text = reader.string(item, at: itemPath) else { continue }
                if let problem = check(text) {
                    reader.report(itemPath, problem)
                } else {
                    result.append(text)
                }
            }
            return result
        }
        let domains = strings("domains") { text in
            isDomain(text) ? nil : "a domain is letters, digits, '-' and dots, e.g. example.com (no '@', no scheme)"
        }
        let addresses = strings("addresses") { text in
            isEmail(text) && isDomain(EmailSources.domain(of: text) ?? "")
                ? nil : "an address is local@domain, e.g. noreply@example.com"
        }
        return EmailSources(domains: domains, addresses: addresses)
    }

    /// Whether `text` is a dotted host name.
    static func isDomain(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && text.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                    && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            }
    }
}
