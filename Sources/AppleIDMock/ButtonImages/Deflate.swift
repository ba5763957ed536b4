/// A small DEFLATE encoder (RFC 1951) for the button images: one block with the fixed Huffman
/// codes, and back-references to the previous pixel and to the same pixel of the previous row.
/// Button images are flat colours with anti-aliased edges, so these two distances find almost every
/// repeat; a general-purpose LZ77 search would buy little here. The zlib wrapper (RFC 1950) is
/// `zlibStream`.
enum Deflate {
    /// A zlib stream (header, one fixed-Huffman block, Adler-32) of `data`, where repeats are
    /// looked for at the distances `distances` (each 1...32768).
    static func zlibStream(_ data: [UInt8], distances: [Int]) -> [UInt8] {
        var bits = BitWriter()
        // CMF: deflate with a 32 KiB window; FLG: no dictionary, level "fastest", check bits.
        bits.bytes = [0x78, 0x01]
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        let usable = distances.filter { (1...32_768).contains($0) }
        var position = 0
        while position < data.count {
            var best = (length: 0, distance: 0)
            for distance in usable where distance <= position {
                let length = matchLength(data, at: position, distance: distance)
                if length > best.length { best = (length, distance) }
            }
            if best.length >= 3 {
                writeLength(best.length, to: &bits)
                writeDistance(best.distance, to: &bits)
                position += best.length
            } else {
                writeSymbol(Int(data[position]), to: &bits)
                position += 1
            }
        }
        writeSymbol(256, to: &bits)  // end of block
        bits.flush()
        let adler = Checksums.adler32(data)
        bits.bytes += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        return bits.bytes
    }

    /// How many bytes from `position` repeat those `distance` bytes back (at most 258).
    private static func matchLength(_ data: [UInt8], at position: Int, distance: Int) -> Int {
        let limit = min(258, data.count - position)
        var length = 0
        while length < limit, data[position + length] == data[position + length - distance] { length += 1 }
        return length
    }

    /// Length codes 257...285: the smallest length of each, and its extra bits.
    private static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    private static let lengthExtra = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    /// Distance codes 0...29: the smallest distance of each, and its extra bits.
    private static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    private static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]

    private static func writeLength(_ length: Int, to bits: inout BitWriter) {
        let index = lengthBase.lastIndex { $0 <= length } ?? 0
        writeSymbol(257 + index, to: &bits)
        bits.write(UInt32(length - lengthBase[index]), count: lengthExtra[index])
    }

    private static func writeDistance(_ distance: Int, to bits: inout BitWriter) {
        let index = distanceBase.lastIndex { $0 <= distance } ?? 0
        bits.writeCode(UInt32(index), count: 5)
        bits.write(UInt32(distance - distanceBase[index]), count: distanceExtra[index])
    }

    /// A literal/length symbol in the fixed Huffman code (RFC 1951 §3.2.6).
    private static func writeSymbol(_ symbol: Int, to bits: inout BitWriter) {
        switch symbol {
        case 0...143: bits.writeCode(UInt32(0x30 + symbol), count: 8)
        case 144...255: bits.writeCode(UInt32(0x190 + symbol - 144), count: 9)
        case 256...279: bits.writeCode(UInt32(symbol - 256), count: 7)
        default: bits.writeCode(UInt32(0xC0 + symbol - 280), count: 8)
        }
    }
}

/// Packs bits into bytes the way DEFLATE does: least significant bit first.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var buffer: UInt32 = 0
    private var filled = 0

    /// Writes the low `count` bits of `value`, least significant first (extra bits, header fields).
    mutating func write(_ value: UInt32, count: Int) {
        guard count > 0 else { return }
        buffer |= (value & ((1 << UInt32(count)) - 1)) << UInt32(filled)
        filled += count
        while filled >= 8 {
            bytes.append(UInt8(buffer & 0xFF))
            buffer >>= 8
            filled -= 8
        }
    }

    /// Writes a Huffman code of `count` bits, most significant bit first.
    mutating func writeCode(_ code: UInt32, count: Int) {
        var reversed: UInt32 = 0
        for bit in 0..<count { reversed |= (code >> UInt32(bit) & 1) << UInt32(count - 1 - bit) }
        write(reversed, count: count)
    }

    /// Pads the last byte with zero bits.
    mutating func flush() {
        if filled > 0 { bytes.append(UInt8(buffer & 0xFF)) }
        buffer = 0
        filled = 0
    }
}
