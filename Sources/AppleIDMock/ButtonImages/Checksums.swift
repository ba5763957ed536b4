/// The two checksums a PNG needs: CRC-32 over each chunk (ISO 3309, as PNG specifies) and Adler-32
/// over the zlib stream's uncompressed data (RFC 1950).
enum Checksums {
    /// The CRC-32 lookup table (polynomial 0xEDB88320, reflected).
    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// CRC-32 of `bytes`, continuing from `crc` (a finished CRC, so calls chain).
    static func crc32<Bytes: Sequence>(_ bytes: Bytes, continuing crc: UInt32 = 0) -> UInt32
    where Bytes.Element == UInt8 {
        var value = ~crc
        for byte in bytes { value = crcTable[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
        return ~value
    }

    /// Adler-32 of `bytes`.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        // 5552 is the longest run whose sums cannot overflow 32 bits before the modulo.
        var start = 0
        while start < bytes.count {
            let end = min(start + 5552, bytes.count)
            for index in start..<end {
                a &+= UInt32(bytes[index])
                b &+= a
            }
            a %= 65521
            b %= 65521
            start = end
        }
        return b << 16 | a
    }
}
