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

    @Test("form encoding: every byte as Foundation's addingPercentEncoding escapes it, pairs joined by & and =")
    func formEncoding() throws {
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let samples = [
            "", "plain", "a b+c&d=e", "http://localhost:3000/auth/apple/callback?x=1#f", "100%", "~-._",
            "✓ é 日本 🍎", "{\"name\":{\"firstName\":\"Maria\"}}", "\u{0}\u{1F}\u{7F}",
            String((0..<128).map { Character(Unicode.Scalar(UInt8($0))) }),
        ]
        for text in samples {
            let expected = try #require(text.addingPercentEncoding(withAllowedCharacters: unreserved))
            #expect(FormParameters.encode([(text, text)]) == "\(expected)=\(expected)")
            #expect(try FormParameters(encoded: FormParameters.encode([("k", text)])).pairs.first?.value == text)
        }
        #expect(FormParameters.encode([("code", "c1"), ("state", "s t"), ("", "")]) == "code=c1&state=s%20t&=")
        #expect(FormParameters.encode([]) == "")
    }

    @Test("the first duplicate parameter: the first name seen a second time, in forms small and large")
    func firstDuplicate() {
        func form(_ names: [String]) -> FormParameters { FormParameters(pairs: names.map { (name: $0, value: "v") }) }
        #expect(form([]).firstDuplicate == nil)
        #expect(form(["a", "b", "c"]).firstDuplicate == nil)
        #expect(form(["a", "b", "a", "b"]).firstDuplicate == "a")
        #expect(form(["a", "b", "c", "b", "a"]).firstDuplicate == "b")
        let many = (0..<40).map { "p\($0)" }
        #expect(form(many).firstDuplicate == nil)
        #expect(form(many + ["p7", "p3"]).firstDuplicate == "p7")
        #expect(form(["x"] + many + ["x"]).firstDuplicate == "x")
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

/// The minter's fast path (claims as issued, no JSON round trip) gives the bytes the round trip does.
@Suite("Minted claims")
struct MintedClaimsTests {
    @Test(
        "a token without overrides carries the claims' bytes a JSON round trip would give",
        arguments: [
            (IdentityTokenOrder.Flow.web, IdentityTokenOrder.Defect?.none), (.native, nil), (.refresh, nil),
            (.web, .missingKid), (.native, .badSignature),
        ])
    func fastPathBytes(flow: IdentityTokenOrder.Flow, defect: IdentityTokenOrder.Defect?) throws {
        let minter = try OfflineMinter(
            scenariosDirectory: Fixture.scenariosDirectory, keysDirectory: Fixture.keysDirectory, scenario: "default")
        var order = IdentityTokenOrder(
            userKey: "sam", clientId: flow == .native ? Fixture.appClient : Fixture.webClient)
        order.flow = flow
        order.nonce = "n-\"quoted\"/slash"
        order.defect = defect
        let minted = try minter.mint(order, now: Fixture.start)
        let segment = minted.token.split(separator: ".", omittingEmptySubsequences: false)[1]
        let bytes = try #require(Data(base64URLEncoded: segment))
        #expect(try TokenMinter.encode(JSONValue.parse(bytes)) == bytes)
        #expect(minted.claims == (try JSONValue.parse(bytes)))
        guard case .object(let header) = minted.header else {
            Issue.record("no header object")
            return
        }
        #expect(header["alg"] == .string("RS256") && (header["kid"] == nil) == (defect == .missingKid))
    }
}
