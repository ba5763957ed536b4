import Foundation

/// Reads a PNG back for the tests, independently of the mock's encoder: chunks with their CRCs, the
/// zlib stream (stored and fixed-Huffman blocks, the two any small encoder writes; dynamic blocks
/// are refused), the Adler-32, and the five scanline filters of colour type 6.
struct PNGTestDecoder {
    /// Why a file is not a PNG this reader can read.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let width: Int
    let height: Int
    /// RGBA, rows top to bottom.
    let pixels: [UInt8]

    /// The colour at (`x`, `y`) as `[r, g, b, a]`.
    func rgba(_ x: Int, _ y: Int) -> [UInt8] {
        Array(pixels[(y * width + x) * 4..<(y * width + x) * 4 + 4])
    }

    init(_ file: [UInt8]) throws {
        guard file.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Failure(description: "no PNG signature")
        }
        var offset = 8
        var header: [UInt8] = []
        var data: [UInt8] = []
        var ended = false
        while offset + 12 <= file.count, !ended {
            let length = Int(Self.word(file, offset))
            let type = String(decoding: file[offset + 4..<offset + 8], as: UTF8.self)
            guard offset + 12 + length <= file.count else { throw Failure(description: "chunk \(type) is cut") }
            let body = Array(file[offset + 8..<offset + 8 + length])
            let crc = Self.word(file, offset + 8 + length)
            guard crc == Self.crc(Array(file[offset + 4..<offset + 8 + length])) else {
                throw Failure(description: "bad CRC on \(type)")
            }
            switch type {
            case "IHDR": header = body
            case "IDAT": data += body
            case "IEND": ended = true
            default: break
            }
            offset += 12 + length
        }
        guard ended, header.count == 13 else { throw Failure(description: "no IHDR or IEND") }
        guard header[8] == 8, header[9] == 6, header[12] == 0 else {
            throw Failure(description: "not 8-bit RGBA without interlace")
        }
        width = Int(Self.word(header, 0))
        height = Int(Self.word(header, 4))
        let raw = try Self.inflateZlib(data)
        let stride = width * 4
        guard raw.count == (stride + 1) * height else {
            throw Failure(description: "\(raw.count) bytes of scanlines for \(width)x\(height)")
        }
        var out = [UInt8](repeating: 0, count: stride * height)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            for column in 0..<stride {
                let value = raw[row * (stride + 1) + 1 + column]
                let left = column >= 4 ? Int(out[row * stride + column - 4]) : 0
                let up = row > 0 ? Int(out[(row - 1) * stride + column]) : 0
                let upLeft = row > 0 && column >= 4 ? Int(out[(row - 1) * stride + column - 4]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = left
                case 2: predictor = up
                case 3: predictor = (left + up) / 2
                case 4:
                    let p = left + up - upLeft
                    let (pa, pb, pc) = (abs(p - left), abs(p - up), abs(p - upLeft))
                    predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft
                default: throw Failure(description: "filter \(filter)")
                }
                out[row * stride + column] = UInt8((Int(value) + predictor) & 0xFF)
            }
        }
        pixels = out
    }

    private static func word(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func crc(_ bytes: [UInt8]) -> UInt32 {
        var value: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            value ^= UInt32(byte)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        }
        return ~value
    }

    /// RFC 1950 around RFC 1951, stored and fixed blocks only.
    static func inflateZlib(_ stream: [UInt8]) throws -> [UInt8] {
        guard stream.count >= 6, stream[0] & 0x0F == 8, (UInt16(stream[0]) << 8 | UInt16(stream[1])) % 31 == 0 else {
            throw Failure(description: "bad zlib header")
        }
        var reader = BitReader(bytes: stream, position: 16)
        var out: [UInt8] = []
        var final = false
        while !final {
            final = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0:
                reader.alignToByte()
                let length = try reader.bits(16)
                let complement = try reader.bits(16)
                guard length == ~complement & 0xFFFF else { throw Failure(description: "stored length check") }
                for _ in 0..<length { out.append(UInt8(try reader.bits(8))) }
            case 1:
                while true {
                    let symbol = try fixedSymbol(&reader)
                    if symbol < 256 {
                        out.append(UInt8(symbol))
                    } else if symbol == 256 {
                        break
                    } else {
                        let index = symbol - 257
                        guard index < 29 else { throw Failure(description: "length code \(symbol)") }
                        let length = lengthBase[index] + (try reader.bits(lengthExtra[index]))
                        let code = try reader.huffman(5)
                        guard code < 30 else { throw Failure(description: "distance code \(code)") }
                        let distance = distanceBase[code] + (try reader.bits(distanceExtra[code]))
                        guard distance <= out.count else { throw Failure(description: "distance too far") }
                        for _ in 0..<length { out.append(out[out.count - distance]) }
                    }
                }
            default: throw Failure(description: "dynamic or reserved block")
            }
        }
        reader.alignToByte()
        let adler = (0..<4).reduce(UInt32(0)) { value, index in
            value << 8 | UInt32(stream[reader.position / 8 + index])
        }
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in out {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        guard adler == b << 16 | a else { throw Failure(description: "Adler-32 mismatch") }
        return out
    }

    private static func fixedSymbol(_ reader: inout BitReader) throws -> Int {
        var code = try reader.huffman(7)
        if code <= 0x17 { return 256 + code }
        code = code << 1 | (try reader.bits(1))
        if (0x30...0xBF).contains(code) { return code - 0x30 }
        if (0xC0...0xC7).contains(code) { return 280 + code - 0xC0 }
        code = code << 1 | (try reader.bits(1))
        return 144 + code - 0x190
    }

    private static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    private static let lengthExtra = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    private static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    private static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]
}

/// Bits of a DEFLATE stream, least significant first.
private struct BitReader {
    let bytes: [UInt8]
    var position: Int

    mutating func bits(_ count: Int) throws -> Int {
        var value = 0
        for index in 0..<count {
            guard position / 8 < bytes.count else { throw PNGTestDecoder.Failure(description: "stream cut") }
            value |= Int(bytes[position / 8] >> UInt8(position % 8) & 1) << index
            position += 1
        }
        return value
    }

    /// A Huffman code's first `count` bits, most significant first.
    mutating func huffman(_ count: Int) throws -> Int {
        var value = 0
        for _ in 0..<count { value = value << 1 | (try bits(1)) }
        return value
    }

    mutating func alignToByte() {
        position = (position + 7) / 8 * 8
    }
}
