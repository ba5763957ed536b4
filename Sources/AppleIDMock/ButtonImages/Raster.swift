#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An RGBA image being drawn: 8 bits a channel, rows top to bottom, not premultiplied. Shapes are
/// painted by coverage (how much of each pixel they cover, 0...1), which anti-aliases their edges.
struct Raster: Sendable {
    /// An sRGB colour with opacity.
    struct Colour: Sendable, Equatable {
        var red: UInt8
        var green: UInt8
        var blue: UInt8
        var alpha: UInt8 = 255

        static let black = Colour(red: 0, green: 0, blue: 0)
        static let white = Colour(red: 255, green: 255, blue: 255)
    }

    let width: Int
    let height: Int
    /// `width * height * 4` bytes: R, G, B, A.
    private(set) var pixels: [UInt8]

    /// A transparent image.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// The colour at (`x`, `y`).
    func colour(x: Int, y: Int) -> Colour {
        let index = (y * width + x) * 4
        return Colour(red: pixels[index], green: pixels[index + 1], blue: pixels[index + 2], alpha: pixels[index + 3])
    }

    /// Paints `colour` over the pixels of `bounds` (clipped to the image), each by the coverage
    /// `coverage` gives for its centre's coordinates.
    mutating func paint(
        _ colour: Colour, in bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double),
        coverage: (Double, Double) -> Double
    ) {
        let startX = max(0, Int(bounds.minX.rounded(.down)))
        let endX = min(width, Int(bounds.maxX.rounded(.up)))
        let startY = max(0, Int(bounds.minY.rounded(.down)))
        let endY = min(height, Int(bounds.maxY.rounded(.up)))
        guard startX < endX, startY < endY else { return }
        for y in startY..<endY {
            for x in startX..<endX {
                let amount = min(1, max(0, coverage(Double(x) + 0.5, Double(y) + 0.5)))
                if amount > 0 { blend(colour, amount: amount, at: (y * width + x) * 4) }
            }
        }
    }

    /// Source-over compositing of `colour` at `amount` coverage onto the pixel at byte `index`.
    private mutating func blend(_ colour: Colour, amount: Double, at index: Int) {
        if amount >= 1, colour.alpha == 255 {
            pixels[index] = colour.red
            pixels[index + 1] = colour.green
            pixels[index + 2] = colour.blue
            pixels[index + 3] = 255
            return
        }
        let sourceAlpha = Double(colour.alpha) / 255 * amount
        let destinationAlpha = Double(pixels[index + 3]) / 255
        let outAlpha = sourceAlpha + destinationAlpha * (1 - sourceAlpha)
        guard outAlpha > 0 else { return }
        let keep = destinationAlpha * (1 - sourceAlpha)
        func mixed(_ source: UInt8, _ destination: UInt8) -> UInt8 {
            let value = (Double(source) * sourceAlpha + Double(destination) * keep) / outAlpha
            return UInt8(min(255, max(0, value.rounded())))
        }
        pixels[index] = mixed(colour.red, pixels[index])
        pixels[index + 1] = mixed(colour.green, pixels[index + 1])
        pixels[index + 2] = mixed(colour.blue, pixels[index + 2])
        pixels[index + 3] = UInt8(min(255, max(0, (outAlpha * 255).rounded())))
    }
}

/// Signed distances of the simple shapes the images are made of (negative inside), in pixels.
/// A pixel's coverage is then `0.5 - distance`, clamped: a one-pixel anti-aliased edge.
enum ShapeDistance {
    /// A rectangle with rounded corners of `radius`.
    static func roundedRect(
        _ x: Double, _ y: Double, minX: Double, minY: Double, maxX: Double, maxY: Double, radius: Double
    ) -> Double {
        let halfWidth = (maxX - minX) / 2
        let halfHeight = (maxY - minY) / 2
        let r = max(0, min(radius, halfWidth, halfHeight))
        let qx = abs(x - (minX + halfWidth)) - (halfWidth - r)
        let qy = abs(y - (minY + halfHeight)) - (halfHeight - r)
        let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
        return outside + min(max(qx, qy), 0) - r
    }

    /// A circle.
    static func circle(_ x: Double, _ y: Double, centreX: Double, centreY: Double, radius: Double) -> Double {
        ((x - centreX) * (x - centreX) + (y - centreY) * (y - centreY)).squareRoot() - radius
    }

    /// An ellipse turned by `angle` radians (an approximation, exact enough for anti-aliasing).
    static func ellipse(
        _ x: Double, _ y: Double, centreX: Double, centreY: Double, radiusX: Double, radiusY: Double, angle: Double
    ) -> Double {
        let dx = x - centreX
        let dy = y - centreY
        let u = (dx * cos(angle) + dy * sin(angle)) / radiusX
        let v = (-dx * sin(angle) + dy * cos(angle)) / radiusY
        return ((u * u + v * v).squareRoot() - 1) * min(radiusX, radiusY)
    }

    /// The coverage of a pixel whose centre is `distance` from a shape's edge.
    static func coverage(_ distance: Double) -> Double {
        min(1, max(0, 0.5 - distance))
    }
}
