/// An apple drawn by the mock from circles and ellipses (not Apple's artwork): a body of two lobes
/// with a dip on top and a bite on the right, and a leaf. Its box is `aspect` wide for 1 high.
enum AppleLogoShape {
    /// Width over height of the shape's box.
    static let aspect = 0.82

    /// The signed distance (negative inside), in the box's units (height 1), of a point of the box
    /// (`x` from 0 to `aspect`, `y` from 0 at the top to 1).
    static func distance(_ x: Double, _ y: Double) -> Double {
        let left = ShapeDistance.circle(x, y, centreX: 0.27, centreY: 0.55, radius: 0.27)
        let right = ShapeDistance.circle(x, y, centreX: 0.55, centreY: 0.55, radius: 0.27)
        let bottom = ShapeDistance.ellipse(
            x, y, centreX: 0.41, centreY: 0.72, radiusX: 0.30, radiusY: 0.27, angle: 0)
        let body = min(left, right, bottom)
        let dip = ShapeDistance.circle(x, y, centreX: 0.41, centreY: 0.25, radius: 0.07)
        let bite = ShapeDistance.circle(x, y, centreX: 0.90, centreY: 0.50, radius: 0.15)
        let leaf = ShapeDistance.ellipse(
            x, y, centreX: 0.49, centreY: 0.13, radiusX: 0.13, radiusY: 0.065, angle: -0.85)
        return min(max(body, -dip, -bite), leaf)
    }

    /// Paints the shape in `colour` into `raster`, in a box `height` pixels high at (`originX`, `originY`).
    static func paint(
        _ colour: Raster.Colour, into raster: inout Raster, originX: Double, originY: Double, height: Double
    ) {
        guard height > 0 else { return }
        raster.paint(
            colour, in: (originX - 1, originY - 1, originX + height * aspect + 1, originY + height + 1)
        ) { x, y in
            ShapeDistance.coverage(distance((x - originX) / height, (y - originY) / height) * height)
        }
    }
}
