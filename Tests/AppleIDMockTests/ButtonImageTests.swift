import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// Apple's button image endpoints as the mock draws them: the parameter rules (404 for anything
/// out of range or unknown), and the PNGs decoded back: size, colours, border, corners, logo and label.
@Suite("Button images")
struct ButtonImageTests {
    private static func read(_ kind: ButtonImageRequest.Kind, _ query: String) throws -> ButtonImageRequest {
        try ButtonImageRequest.read(kind, FormParameters(encoded: query).pairs)
    }

    private static func image(_ kind: ButtonImageRequest.Kind, _ query: String) throws -> PNGTestDecoder {
        try PNGTestDecoder(ButtonImageRenderer.png(for: read(kind, query)))
    }

    @Test("defaults: 140x30, black, radius 15 %, sign-in; the logo 30x30")
    func defaults() throws {
        let centred = try Self.read(.centred, "")
        #expect(centred.width == 140 && centred.height == 30 && centred.colour == .black && !centred.border)
        #expect(centred.label == .signIn && centred.borderRadius == 15 && centred.scale == 1)
        let logo = try Self.read(.logo, "")
        #expect(logo.width == 30 && logo.height == 30)
        let left = try Self.read(.left, "")
        #expect(left.logoSize == .small && left.labelPosition == nil)
    }

    @Test(
        "every documented value passes at its bounds",
        arguments: [
            (
                ButtonImageRequest.Kind.centred,
                "height=30&width=130&color=white&border=true&type=continue&border_radius=0&scale=1&locale=ar_SA"
            ),
            (
                .centred,
                "height=64&width=375&color=black&border=false&type=sign-in&border_radius=50&scale=6&locale=zh_TW"
            ),
            (.left, "width=375&label-position=182&logo-position=182&logo-size=large&locale=iw_IL"),
            (.left, "width=130&label-position=65&logo-position=0&logo-size=medium&locale=vi_VI"),
            (.logo, "size=64&color=white&border=true&border_radius=50&scale=6"),
            (.logo, "size=30&border_radius=0&scale=1"),
        ])
    func accepted(kind: ButtonImageRequest.Kind, query: String) throws {
        _ = try Self.read(kind, query)
    }

    @Test(
        "anything out of range, malformed, unknown or repeated is refused (Apple answers 404)",
        arguments: [
            (ButtonImageRequest.Kind.centred, "height=29"), (.centred, "height=65"), (.centred, "height=4a"),
            (.centred, "height="), (.centred, "height=-30"), (.centred, "height=30.0"), (.centred, "height=+30"),
            (.centred, "width=129"), (.centred, "width=376"), (.centred, "color=white-outline"),
            (.centred, "color=Black"), (.centred, "border=yes"), (.centred, "border=1"), (.centred, "type=sign_in"),
            (.centred, "type=signin"), (.centred, "border_radius=51"), (.centred, "scale=0"), (.centred, "scale=7"),
            (.centred, "locale=en"), (.centred, "locale=en_AU"), (.centred, "locale=he_IL"),
            (.centred, "label-position=10"), (.centred, "logo-size=small"), (.centred, "size=30"),
            (.centred, "foo=bar"), (.centred, "height=30&height=40"),
            (.left, "label-position=183"), (.left, "logo-position=183"), (.left, "logo-size=huge"),
            (.left, "label-position=71"), (.left, "width=200&label-position=101"), (.left, "size=30"),
            (.logo, "size=29"), (.logo, "size=65"), (.logo, "height=30"), (.logo, "width=140"),
            (.logo, "type=continue"), (.logo, "locale=en_US"), (.logo, "logo-size=small"), (.logo, "scale=7"),
            (.logo, "border_radius=51"), (.logo, "color=red"),
        ])
    func refused(kind: ButtonImageRequest.Kind, query: String) throws {
        #expect(throws: ButtonImageRequest.Refusal.self, "\(kind) ?\(query)") { try Self.read(kind, query) }
    }

    @Test("the image is width x scale by height x scale, in the colour asked, transparent past the corners")
    func sizeAndColour() throws {
        let black = try Self.image(.centred, "width=200&height=44&scale=2")
        #expect(black.width == 400 && black.height == 88)
        #expect(black.rgba(0, 0)[3] == 0, "the rounded corner is transparent")
        #expect(black.rgba(200, 2) == [0, 0, 0, 255], "the top edge is the button's black")
        #expect(black.rgba(4, 44) == [0, 0, 0, 255])
        let white = try Self.image(.centred, "width=200&height=44&color=white")
        #expect(white.width == 200 && white.height == 44)
        #expect(white.rgba(100, 1) == [255, 255, 255, 255])
        let square = try Self.image(.centred, "border_radius=0")
        #expect(square.rgba(0, 0) == [0, 0, 0, 255], "no radius: the corner is painted")
    }

    @Test("the label and the logo are drawn in the other colour, and continue is wider than sign in")
    func labelAndLogo() throws {
        let signIn = try Self.image(.centred, "width=300&height=50&scale=2")
        let continued = try Self.image(.centred, "width=300&height=50&scale=2&type=continue")
        func inkColumns(_ image: PNGTestDecoder) -> [Int] {
            (0..<image.width).filter { x in (0..<image.height).contains { y in image.rgba(x, y)[0] > 200 } }
        }
        let signInInk = inkColumns(signIn)
        let continueInk = inkColumns(continued)
        #expect(!signInInk.isEmpty)
        #expect(
            (continueInk.last ?? 0) - (continueInk.first ?? 0) > (signInInk.last ?? 0) - (signInInk.first ?? 0))
        // Centred: as much room left of the ink as right of it, within a few pixels.
        let leftRoom = signInInk.first ?? 0
        let rightRoom = signIn.width - 1 - (signInInk.last ?? 0)
        #expect(abs(leftRoom - rightRoom) <= 4, "left \(leftRoom), right \(rightRoom)")
        // The top and bottom rows stay the background.
        #expect((0..<signIn.width).allSatisfy { signIn.rgba($0, 0)[0] < 50 || signIn.rgba($0, 0)[3] < 255 })
    }

    @Test("the logo image is square, with the apple in its middle; border_radius 50 makes it round")
    func logo() throws {
        let logo = try Self.image(.logo, "size=40&scale=3&color=white&border_radius=50")
        #expect(logo.width == 120 && logo.height == 120)
        #expect(logo.rgba(60, 66) == [0, 0, 0, 255], "the apple's body is black on white")
        #expect(logo.rgba(60, 8) == [255, 255, 255, 255])
        #expect(logo.rgba(3, 3)[3] == 0, "a round button leaves the corner transparent")
    }

    @Test("a border is a one-point black line inside the edge")
    func border() throws {
        let bordered = try Self.image(.centred, "color=white&border=true&border_radius=0&scale=3")
        #expect(bordered.rgba(200, 0) == [0, 0, 0, 255])
        #expect(bordered.rgba(200, 2) == [0, 0, 0, 255], "three pixels at scale 3")
        #expect(bordered.rgba(200, 3) == [255, 255, 255, 255])
        let plain = try Self.image(.centred, "color=white&border_radius=0&scale=3")
        #expect(plain.rgba(200, 0) == [255, 255, 255, 255])
    }

    @Test("left: the logo starts at logo-position and the label at label-position")
    func leftPositions() throws {
        let image = try Self.image(.left, "width=300&height=40&logo-position=20&label-position=100")
        let ink = (0..<image.width).filter { x in (0..<image.height).contains { image.rgba(x, $0)[0] > 128 } }
        #expect((19...21).contains(ink.first ?? -1), "the logo starts near 20: \(ink.first ?? -1)")
        #expect(!ink.contains { (45..<99).contains($0) }, "nothing between the logo and the label")
        #expect(ink.contains { (99...102).contains($0) }, "the label starts near 100")
        let large = try Self.image(.left, "width=300&height=40&logo-position=20&label-position=100&logo-size=large")
        let tall = { (image: PNGTestDecoder) in
            (0..<image.height).filter { y in (0..<60).contains { image.rgba($0, y)[0] > 128 } }.count
        }
        #expect(tall(large) > tall(image), "a large logo is taller than a small one")
    }

    @Test("the zlib stream inflates to the raw scanlines and repeats compress")
    func compression() throws {
        let png = ButtonImageRenderer.png(for: try Self.read(.centred, "width=375&height=64&scale=6"))
        #expect(png.count < 2250 * 384 * 4 / 10, "a flat image compresses: \(png.count) bytes")
        let decoded = try PNGTestDecoder(png)
        #expect(decoded.width == 2250 && decoded.height == 384)
        let data: [UInt8] = (0..<5000).map { UInt8($0 % 7 == 0 ? $0 % 251 : 9) }
        #expect(try PNGTestDecoder.inflateZlib(Deflate.zlibStream(data, distances: [1, 7])) == data)
        #expect(try PNGTestDecoder.inflateZlib(Deflate.zlibStream([], distances: [4])) == [])
    }

    @Test("served at Apple's paths as PNG, cacheable with an ETag; HEAD has no body; 404 for bad parameters")
    func routes() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            for path in ["/appleid/button", "/appleid/button/left", "/appleid/button/logo"] {
                let response = try await client.execute(uri: path + "?color=white&scale=2", method: .get)
                #expect(response.status == .ok, "\(path)")
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.cacheControl] == "public, max-age=300")
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                let decoded = try PNGTestDecoder(Array(response.body.readableBytesView))
                #expect(decoded.height == (path.hasSuffix("logo") ? 60 : 60))
                let etag = try #require(response.headers[.eTag])
                let again = try await client.execute(
                    uri: path + "?color=white&scale=2", method: .get, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified && again.body.readableBytes == 0)
                let head = try await client.execute(uri: path + "?color=white&scale=2", method: .head)
                #expect(head.status == .ok && head.body.readableBytes == 0)
                #expect(head.headers[.contentType] == "image/png")
            }
            // The issue's page: `<img src="https://appleid.cdn-apple.com/appleid/button?height=44&width=200&color=white">`.
            let issue = try await client.execute(uri: "/appleid/button?height=44&width=200&color=white", method: .get)
            let decoded = try PNGTestDecoder(Array(issue.body.readableBytesView))
            #expect(decoded.width == 200 && decoded.height == 44 && decoded.rgba(100, 2) == [255, 255, 255, 255])
            for miss in [
                "/appleid/button?color=white-outline", "/appleid/button?type=sign_in", "/appleid/button?height=100",
                "/appleid/button/logo?width=140", "/appleid/button/left?label-position=71", "/appleid/button?x=%zz",
                "/appleid/button?scale=2&scale=2",
            ] {
                let response = try await client.execute(uri: miss, method: .get)
                #expect(response.status == .notFound, "\(miss)")
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(response.text.hasPrefix("Page Not Found"))
            }
        }
    }
}
