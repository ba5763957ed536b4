/// Writes an RGBA raster as a PNG (8-bit truecolour with alpha, no interlace): signature, `IHDR`,
/// one `IDAT` compressed by `Deflate`, `IEND`.
enum PNGEncoder {
    /// The PNG file of `raster`.
    static func encode(_ raster: Raster) -> [UInt8] {
        let stride = raster.width * 4 + 1
        var scanlines = [UInt8]()
        scanlines.reserveCapacity(stride * raster.height)
        for row in 0..<raster.height {
            scanlines.append(0)  // filter type None
            scanlines += raster.pixels[row * raster.width * 4..<(row + 1) * raster.width * 4]
        }
        var header = [UInt8]()
        header += bigEndian(UInt32(raster.width))
        header += bigEndian(UInt32(raster.height))
        header += [8, 6, 0, 0, 0]  // bit depth 8, colour type 6 (RGBA), deflate, adaptive filters, no interlace
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += chunk("IHDR", header)
        // Repeats: the previous pixel, and the same pixel one row up.
        file += chunk("IDAT", Deflate.zlibStream(scanlines, distances: [4, stride]))
        file += chunk("IEND", [])
        return file
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data
            + bigEndian(Checksums.crc32(data, continuing: Checksums.crc32(typeBytes)))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
