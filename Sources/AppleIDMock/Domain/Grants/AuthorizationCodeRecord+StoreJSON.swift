/// A code's stored JSON, written directly (one per authorize: see `StoreJSONWritable`).
extension AuthorizationCodeRecord: StoreJSONWritable {
    func writeStoreJSON(to writer: inout StoreJSONText) {
        writer.object { json in
            json.field("appGroupId", appGroupId)
            json.field("authTime", authTime)
            json.field("clientId", clientId)
            json.field("code", code)
            json.field("codeChallenge", codeChallenge)
            json.field("codeChallengeMethod", codeChallengeMethod)
            json.field("consentGeneration", consentGeneration)
            json.field("expiresAt", expiresAt)
            json.field("issuedAt", issuedAt)
            json.field("nonce", nonce)
            json.field("redeemedAt", redeemedAt)
            json.field("redirectUri", redirectUri)
            json.field("userKey", userKey)
        }
    }
}
