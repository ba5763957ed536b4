import Foundation
import Testing

@testable import AppleIDMock

/// The token path's JSON written without the encoder (`AppleJSONWriter`) is byte for byte what
/// `TokenMinter`'s `JSONEncoder` writes.
@Suite("Apple JSON writer")
struct AppleJSONWriterTests {
    /// Every character class the encoder treats apart: quotes, backslashes, slashes, named and
    /// numbered control characters, DEL, non-ASCII.
    static let awkward = "a\"b\\c/d\u{8}\u{C}\n\r\t\u{0}\u{1F}\u{7F}é\u{2028}😀"

    static func claims(_ style: MockSettings.BooleanClaimStyle, full: Bool) -> IdentityTokenClaims {
        var claims = IdentityTokenClaims(
            aud: "com.example.web", exp: 1_796_033_465, iat: 1_795_947_065, sub: "001234.abc.5678",
            booleanStyle: style)
        guard full else { return claims }
        claims.nonce = Self.awkward
        claims.cHash = "c-hash_value"
        claims.atHash = "at-hash_value"
        claims.email = "maria+\(Self.awkward)@example.com"
        claims.emailVerified = true
        claims.isPrivateEmail = false
        claims.authTime = -5
        claims.nonceSupported = true
        claims.realUserStatus = 2
        claims.transferSub = "transfer/\(Self.awkward)"
        claims.orgId = "org"
        return claims
    }

    @Test(arguments: [MockSettings.BooleanClaimStyle.boolean, .string, .mixed], [false, true])
    func claimsMatchTheEncoder(style: MockSettings.BooleanClaimStyle, full: Bool) throws {
        let claims = Self.claims(style, full: full)
        #expect(claims.appleJSON == Array(try TokenMinter.encode(claims)))
    }

    @Test(arguments: [false, true])
    func tokenResponseMatchesTheEncoder(full: Bool) throws {
        let response = TokenResponse(
            accessToken: "a81e0990b434d4.0.jlzr.6SRY", expiresIn: 3600, refreshToken: full ? "r\(Self.awkward)" : nil,
            idToken: full ? "eyJ.eyJ.sig" : nil)
        #expect(response.appleJSON == Array(try TokenMinter.encode(response)))
    }
}
