import Foundation
import Testing

@testable import AppleIDMock

/// `sub` and relay addresses have Apple's shapes and are the same on every run.
@Suite("Identifier derivation")
struct IdentifierDerivationTests {
    @Test("sub has Apple's NNNNNN.<32 hex>.NNNN shape")
    func subShape() {
        let sub = IdentifierDerivation.subject(userKey: "maria", teamId: "DEF123GHIJ")
        #expect(sub.wholeMatch(of: /[0-9]{6}\.[0-9a-f]{32}\.[0-9]{4}/) != nil)
    }

    @Test("relay addresses are 10 lowercase alphanumerics at privaterelay.appleid.com")
    func relayShape() {
        let email = IdentifierDerivation.relayEmail(userKey: "sam", teamId: "DEF123GHIJ")
        #expect(email.wholeMatch(of: /[a-z0-9]{10}@privaterelay\.appleid\.com/) != nil)
    }

    @Test("identifiers are pinned: the same on every run and machine")
    func deterministic() {
        #expect(
            IdentifierDerivation.subject(userKey: "sam", teamId: "DEF123GHIJ")
                == "760689.eefe970ae08d685bf4e3f266c92696af.0037")
        #expect(
            IdentifierDerivation.relayEmail(userKey: "sam", teamId: "DEF123GHIJ")
                == "m5mmjhiduz@privaterelay.appleid.com")
    }

    @Test("identifiers are team-scoped")
    func teamScoped() {
        #expect(
            IdentifierDerivation.subject(userKey: "maria", teamId: "DEF123GHIJ")
                != IdentifierDerivation.subject(userKey: "maria", teamId: "XYZ789KLMN"))
        #expect(
            IdentifierDerivation.relayEmail(userKey: "maria", teamId: "DEF123GHIJ")
                != IdentifierDerivation.relayEmail(userKey: "maria", teamId: "XYZ789KLMN"))
    }
}
