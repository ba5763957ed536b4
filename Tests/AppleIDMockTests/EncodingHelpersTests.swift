import Foundation
import Testing

@testable import AppleIDMock

/// The byte-level encoders and decoders that replaced Foundation on the request path give exactly
/// what Foundation gave.
@Suite("Encoding helpers")
struct EncodingHelpersTests {
    @Test("base64url: Foundation's base64 with the URL alphabet and no padding, for every length")
    func base64URL() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let expected = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(data.base64URLEncoded == expected)
            #expect(Data(base64URLEncoded: expected) == data)
        }
    }

    @Test("form values decode as Foundation's removingPercentEncoding, + as a space, bad input refused")
    func formDecoding() throws {
        let form = try FormParameters(encoded: "a=1+2&b=%E2%9C%93%2b&c=&d=plain&e=%7e%7E")
        #expect(form.pairs.map(\.value) == ["1 2", "✓+", "", "plain", "~~"])
        for bad in ["a=%", "a=%4", "a=%zz", "a=%C3%28", "%=1"] {
            #expect(throws: FormParameters.Problem.malformedEncoding) { try FormParameters(encoded: bad) }
        }
    }

    @Test("hex and zero padding")
    func hex() {
        #expect([0x00, 0x0f, 0xa5, 0xff].lowercaseHex == "000fa5ff")
        #expect(UInt32(42).zeroPadded(6) == "000042")
        #expect(UInt32(1_234_567).zeroPadded(6) == "1234567")
    }

    @Test("opaque tokens have Apple's shapes")
    func opaqueTokens() {
        let code = OpaqueToken.make(.code)
        #expect(code.wholeMatch(of: /c[0-9a-f]{32}\.0\.[a-z]{4}\.[A-Za-z0-9_-]{22}/) != nil)
        #expect(OpaqueToken.make(.refreshToken).hasPrefix("r"))
        #expect(OpaqueToken.make(.accessToken) != OpaqueToken.make(.accessToken))
    }
}
