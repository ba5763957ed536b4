import Foundation
import Testing

@testable import AppleIDMock

/// The library uses `FoundationEssentials` (for an image without ICU's full data); where it
/// used one of full Foundation's functions, its replacement writes the same bytes. Each is held
/// here to the Foundation function it replaced, on the inputs that tell them apart.
@Suite("Foundation's replacements write the same bytes")
struct FoundationEssentialsParityTests {
    /// Texts with tabs, spaces of every Unicode kind, line breaks (not trimmed), combining marks.
    static let texts = [
        "", " ", "\t", "  a b  ", "\ta\t", "\u{00A0}x\u{3000}", "\u{2003}\u{2009}y\u{202F}", " \n x \n ",
        "\r\n", " \u{301}z ", "é ", "\u{1680}Ogham\u{205F}", "日本 語　", "a\u{200B}", " \u{FEFF}b ",
    ]

    @Test("trimmingWhitespace() is trimmingCharacters(in: .whitespaces)")
    func trimming() {
        for text in Self.texts {
            #expect(
                text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "\(Array(text.unicodeScalars))")
            #expect(
                text.trimming { $0 == " " || $0 == "\t" } == text.trimmingCharacters(in: [" ", "\t"]),
                "\(Array(text.unicodeScalars))")
        }
    }

    @Test("PercentEncoding.pathSegment is addingPercentEncoding(withAllowedCharacters: urlPathAllowed less /)")
    func percentEncoding() {
        let allowed = CharacterSet.urlPathAllowed.subtracting(["/"])
        var texts = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        texts += ["com.example/app:1", "a b%c?d#e", "ü/€/😀", "e\u{301}", "\u{7F}\u{80}"]
        for text in texts {
            #expect(PercentEncoding.pathSegment(text) == text.addingPercentEncoding(withAllowedCharacters: allowed))
        }
    }

    @Test("rfc5322Date is DateFormatter's EEE, dd MMM yyyy HH:mm:ss +0000 in en_US_POSIX and UTC")
    func rfc5322Date() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss +0000"
        var generator = SplitMix64(state: 35)
        var instants: [Double] = [0, -0.5, -1, 951_782_400, 1_000_000_000.9, 1_795_758_278, 253_402_300_799]
        instants += [4_098_151_384.999796, 2_840_248_082.999856, -123_413_022.00024652]
        for _ in 0..<2000 {
            instants.append(Double(generator.next() % 10_000_000_000) / 1000 - 2_000_000)
            instants.append(Double(Int64(generator.next() % 8_000_000_000) - 2_000_000_000) + 0.9995)
        }
        for instant in instants {
            let date = Date(timeIntervalSince1970: instant)
            #expect(RelayRewriting.rfc5322Date(date) == formatter.string(from: date), "\(instant)")
        }
    }

    @Test("the certificate warning's day is ISO8601DateFormatter's .withFullDate")
    func isoDay() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let style = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
        for instant in [0, -1, 86_399, 86_400, 951_782_400, 1_795_758_278, 253_402_300_799] as [Double] {
            let date = Date(timeIntervalSince1970: instant)
            #expect(style.format(date) == formatter.string(from: date))
        }
    }
}
