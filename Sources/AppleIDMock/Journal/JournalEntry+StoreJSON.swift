/// A journal entry's stored JSON, written directly (one per request: see `StoreJSONWritable`).
extension JournalEntry: StoreJSONWritable {
    func writeStoreJSON(to writer: inout StoreJSONText) {
        writer.object { json in
            json.field("at", at)
            json.field("attempt", attempt)
            json.field("clientId", clientId)
            json.field("clientSecretKeyId", clientSecretKeyId)
            json.field("clientSecretTeamId", clientSecretTeamId)
            json.field("endpoint", endpoint)
            json.field("fault", fault)
            json.field("fingerprints", fingerprints)
            json.field("grantType", grantType)
            json.field("id", id)
            json.field("issued", issued)
            json.field("latencyMilliseconds", latencyMilliseconds)
            json.field("method", method)
            json.field("namespace", namespace)
            json.field("notificationId", notificationId)
            json.field("notificationType", notificationType)
            json.field("outcome", outcome.description)
            json.field("reason", reason)
            json.field("status", status)
            json.field("sub", sub)
            json.field("traceparent", traceparent)
            json.field("url", url)
            json.field("userKey", userKey)
            json.field("wallTime", wallTime)
        }
    }
}
