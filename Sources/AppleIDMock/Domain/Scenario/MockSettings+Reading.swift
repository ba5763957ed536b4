extension MockSettings {
    /// The names of every setting, as written in JSON.
    static let fieldNames = Set(table.map(\.name))

    /// Applies the members of a JSON object over these settings (each as `table` describes it),
    /// reporting bad members to `reader`. Used for a scenario's `settings` and for
    /// `PATCH /__admin/settings`.
    func applying(_ value: JSONValue, at path: JSONPath, reader: inout JSONReader) -> MockSettings {
        var result = self
        guard let members = reader.object(value, at: path, allowed: Self.fieldNames) else { return result }
        for field in Self.table {
            if let raw = members[field.name] { field.apply(&result, raw, path.member(field.name), &reader) }
        }
        return result
    }
}
