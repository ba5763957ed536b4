import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The control plane's steps on the signing keys: rotate, publish, unpublish, sign with, delete,
/// restore the bundled set. Each is one step on the control record, so every replica signs and
/// publishes the same keys.
extension MockState {
    /// What to do with one key.
    enum KeyChange: String, Sendable, CaseIterable {
        case publish, unpublish, sign
    }

    /// Makes a new RSA-2048 key, publishes it (unless `publish` is false) and signs with it; the keys
    /// published until now stay in the JWKS for `graceSeconds` (default: the `keyGraceSeconds`
    /// setting) on the mock's clock. Returns the new `kid`.
    func rotateKey(graceSeconds: Int?, publish: Bool) async throws -> String {
        let made = try await GeneratedKey.make()
        try await changeControl { control, active, transaction in
            var roster = control.keys ?? self.defaultRoster(settings: active.world.settings)
            let grace = graceSeconds ?? active.world.settings.keyGraceSeconds
            let dropped = try Self.refusing {
                try roster.rotate(to: made.kid, now: active.now, grace: TimeInterval(grace), publish: publish)
            }
            for kid in dropped { try await transaction.delete(Spaces.generatedKeys, kid) }
            try await transaction.put(Spaces.generatedKeys, made.kid, made.key)
            control.keys = roster
        }
        logger.info("signing key rotated", metadata: ["idp.kid": .string(made.kid)])
        return made.kid
    }

    /// Publishes, unpublishes or signs with `kid`. In a namespace other than the default, unpublishing
    /// a bundled key under its shared `kid` gives the namespace a `kid` of its own for it (signing
    /// under that one if the key signed): the shared one is still published for the others.
    func changeKey(_ kid: String, _ change: KeyChange) async throws {
        try await changeControl { control, active, _ in
            var roster = control.keys ?? self.defaultRoster(settings: active.world.settings)
            try Self.refusing {
                switch change {
                case .publish: try roster.publish(kid)
                case .unpublish:
                    // Copy on write: a shared kid stays published for the namespaces that keep it;
                    // this one takes a kid of its own for the key, which it unpublishes.
                    let own = self.scope.ownKid(replacingShared: kid, in: self.catalog.keyRing)
                    if let own { try roster.rename(kid, to: own) }
                    try roster.unpublish(own ?? kid)
                case .sign: try roster.sign(with: kid)
                }
            }
            control.keys = roster
        }
    }

    /// Deletes a generated key that does not sign.
    func deleteKey(_ kid: String) async throws {
        try await changeControl { control, active, transaction in
            var roster = control.keys ?? self.defaultRoster(settings: active.world.settings)
            try Self.refusing { try roster.delete(kid) }
            try await transaction.delete(Spaces.generatedKeys, kid)
            control.keys = roster
            if control.settingsPatch["signingKeyId"] == .string(kid) { control.settingsPatch["signingKeyId"] = nil }
        }
    }

    /// Back to the bundled keys, all published, signing as the settings say; generated keys go.
    func restoreBundledKeys() async throws {
        try await changeControl { control, _, transaction in
            try await transaction.clear([Spaces.generatedKeys.name])
            // A patch naming a generated key would name a key that is gone.
            if case .string(let kid) = control.settingsPatch["signingKeyId"],
                control.keys?.entries.first(where: { $0.kid == kid })?.origin == .generated
            {
                control.settingsPatch["signingKeyId"] = nil
            }
            control.keys = nil
        }
    }

    /// Runs a roster rule, turning its refusal into the control plane's 404 or 409.
    private static func refusing<T>(_ rule: () throws -> T) throws -> T {
        do {
            return try rule()
        } catch let refusal as KeyRoster.Refusal {
            if let limit = refusal.limit { throw ControlRefusal.limitReached(refusal.message, limit: limit) }
            throw refusal.unknownKey ? ControlRefusal.notFound(refusal.message) : .notApplicable(refusal.message)
        }
    }
}
