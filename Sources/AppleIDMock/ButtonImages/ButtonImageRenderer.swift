/// Draws a button image as `ButtonImageRequest` asks: `width * scale` by `height * scale` pixels,
/// the background in `color` inside corners of `border_radius` percent of the height (transparent
/// outside), a one-point black border when asked, and the mock's own apple and label in the other
/// colour. The layout follows Apple's button styles in spirit, not Apple's artwork.
enum ButtonImageRenderer {
    /// The image for `request`, as a raster.
    static func raster(for request: ButtonImageRequest) -> Raster {
        let scale = Double(request.scale)
        let width = Double(request.width) * scale
        let height = Double(request.height) * scale
        var raster = Raster(width: request.width * request.scale, height: request.height * request.scale)
        let background: Raster.Colour = request.colour == .black ? .black : .white
        let foreground: Raster.Colour = request.colour == .black ? .white : .black
        let radius = Double(request.borderRadius) / 100 * height
        let outer = (0.0, 0.0, width, height)
        if request.border {
            paintRoundedRect(.black, outer, radius: radius, into: &raster)
            let inset = scale
            paintRoundedRect(
                background, (inset, inset, width - inset, height - inset), radius: max(0, radius - inset),
                into: &raster)
        } else {
            paintRoundedRect(background, outer, radius: radius, into: &raster)
        }
        switch request.kind {
        case .logo:
            let logoHeight = height * 0.45
            AppleLogoShape.paint(
                foreground, into: &raster, originX: (width - logoHeight * AppleLogoShape.aspect) / 2,
                originY: (height - logoHeight) / 2 - logoHeight * 0.04, height: logoHeight)
        case .centred:
            drawCentred(request.label.text, foreground, width: width, height: height, into: &raster)
        case .left:
            drawLeft(request, foreground, scale: scale, width: width, height: height, into: &raster)
        }
        return raster
    }

    /// The PNG file for `request`.
    static func png(for request: ButtonImageRequest) -> [UInt8] {
        PNGEncoder.encode(raster(for: request))
    }

    /// Cap height of the label, as a share of the button's height.
    private static let capShare = 0.30

    private static func drawCentred(
        _ text: String, _ colour: Raster.Colour, width: Double, height: Double, into raster: inout Raster
    ) {
        var cell = height * capShare / PixelFont.capCells
        var logoHeight = height * 0.42
        let textCells = Double(PixelFont.width(of: text))
        // Logo, a gap of three cells, the label; shrunk to leave a margin of a third of the height.
        let group = logoHeight * AppleLogoShape.aspect + cell * 3 + textCells * cell
        let room = width - height * 2 / 3
        if group > room {
            let shrink = room / group
            cell *= shrink
            logoHeight *= shrink
        }
        let logoWidth = logoHeight * AppleLogoShape.aspect
        let start = (width - (logoWidth + cell * 3 + textCells * cell)) / 2
        drawLogoAndLabel(
            text, colour, logoX: start, logoHeight: logoHeight, labelX: start + logoWidth + cell * 3, cell: cell,
            height: height, into: &raster)
    }

    private static func drawLeft(
        _ request: ButtonImageRequest, _ colour: Raster.Colour, scale: Double, width: Double, height: Double,
        into raster: inout Raster
    ) {
        let share =
            switch request.logoSize {
            case .small: 0.42
            case .medium: 0.52
            case .large: 0.62
            }
        let logoHeight = height * share
        let logoX = request.logoPosition.map { Double($0) * scale } ?? height * 0.3
        var cell = height * capShare / PixelFont.capCells
        let labelX =
            request.labelPosition.map { Double($0) * scale } ?? logoX + logoHeight * AppleLogoShape.aspect + cell * 3
        // The label shrinks to end a third of the height before the right edge.
        let textWidth = Double(PixelFont.width(of: request.label.text)) * cell
        let room = width - height / 3 - labelX
        if textWidth > room, room > 0 { cell *= room / textWidth }
        drawLogoAndLabel(
            request.label.text, colour, logoX: logoX, logoHeight: logoHeight, labelX: labelX, cell: cell,
            height: height, into: &raster)
    }

    /// The logo centred on the button's middle line, the label's capitals centred on it too.
    private static func drawLogoAndLabel(
        _ text: String, _ colour: Raster.Colour, logoX: Double, logoHeight: Double, labelX: Double, cell: Double,
        height: Double, into raster: inout Raster
    ) {
        AppleLogoShape.paint(
            colour, into: &raster, originX: logoX, originY: (height - logoHeight) / 2 - logoHeight * 0.06,
            height: logoHeight)
        PixelFont.paint(
            text, colour: colour, into: &raster, originX: labelX,
            originY: (height - cell * PixelFont.capCells) / 2, cell: cell)
    }

    private static func paintRoundedRect(
        _ colour: Raster.Colour, _ box: (Double, Double, Double, Double), radius: Double, into raster: inout Raster
    ) {
        raster.paint(colour, in: box) { x, y in
            ShapeDistance.coverage(
                ShapeDistance.roundedRect(x, y, minX: box.0, minY: box.1, maxX: box.2, maxY: box.3, radius: radius))
        }
    }
}
