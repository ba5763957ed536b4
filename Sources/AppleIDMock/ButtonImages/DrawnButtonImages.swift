import Crypto
import NIOCore
import NIOPosix

/// Button images drawn once: the images already drawn (a bounded cache), and for one not drawn
/// yet, one drawing that every request asking for it meanwhile waits for.
final class DrawnButtonImages: Sendable {
    private let drawn: BoundedCache<ButtonImageRequest, BundledAsset>
    private let drawing = SingleFlight<ButtonImageRequest, BundledAsset>()
    private let draw: @Sendable (ButtonImageRequest) async throws -> BundledAsset

    /// Keeps up to `capacity` images; `draw` makes one (by default off the event loop).
    init(
        capacity: Int = 256,
        draw: @escaping @Sendable (ButtonImageRequest) async throws -> BundledAsset = DrawnButtonImages.drawOffLoop
    ) {
        drawn = BoundedCache(capacity: capacity)
        self.draw = draw
    }

    /// The image for `asked`: from the cache, or drawn once however many ask at the same time.
    func image(for asked: ButtonImageRequest) async throws -> BundledAsset {
        if let known = drawn[asked] { return known }
        return try await drawing.run(asked) { [drawn, draw] in
            // Drawn by a run that ended between the look above and this one.
            if let known = drawn[asked] { return known }
            let image = try await draw(asked)
            drawn.insert(image, for: asked)
            return image
        }
    }

    /// How many requests wait for `asked`'s drawing under way (for tests).
    func waiting(for asked: ButtonImageRequest) async -> Int {
        await drawing.waiters(for: asked)
    }

    /// Draws `asked` on `NIOThreadPool.singleton` (the largest, 2250 x 384 pixels, takes a
    /// noticeable fraction of a second), with an ETag from its bytes.
    @Sendable static func drawOffLoop(_ asked: ButtonImageRequest) async throws -> BundledAsset {
        try await NIOThreadPool.singleton.runIfActive {
            let png = ButtonImageRenderer.png(for: asked)
            let digest = SHA256.hash(data: png).prefix(8).lowercaseHex
            return BundledAsset(body: ByteBuffer(bytes: png), contentType: "image/png", etag: "\"\(digest)\"")
        }
    }
}
