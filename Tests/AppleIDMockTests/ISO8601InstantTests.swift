import Foundation
import Testing

@testable import AppleIDMock

/// Scenario dates and the journal's `since` are read by arithmetic: the same instants as
/// Foundation's `.iso8601` strategy for every well-formed date-time, and a refusal where Foundation
/// rolled a field over or ignored trailing text.
@Suite("ISO 8601 instants")
struct ISO8601InstantTests {
    @Test(
        "well-formed date-times: the instant Foundation reads",
        arguments: [
            "2026-01-01T00:00:00Z", "2026-01-01T00:00:00z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
            "1600-02-29T00:00:00Z", "1583-01-01T12:00:00Z", "1969-12-31T23:59:59Z", "1900-02-28T06:07:08Z",
            "2000-02-29T23:59:59Z", "2024-02-29T12:34:56Z", "2026-11-24T10:20:30+01:00", "2026-11-24T10:20:30+0100",
            "2026-11-24T10:20:30+01", "2026-11-24T10:20:30-05:30", "2026-11-24T10:20:30-00:00",
            "2026-11-24T10:20:30+14:00", "2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.123Z",
        ])
    func agreesWithFoundation(text: String) throws {
        let expected = try Date(text, strategy: .iso8601)
        let parsed = try #require(ISO8601Instant.parse(text))
        #expect(abs(parsed.timeIntervalSince1970 - expected.timeIntervalSince1970) < 0.000_5)
    }

    @Test("a leap second is the instant after 23:59:59 (newer Foundation reads :60 as :59, this one rolls over)")
    func leapSecond() throws {
        let leap = try #require(ISO8601Instant.parse("2026-06-30T23:59:60Z"))
        #expect(leap == ISO8601Instant.parse("2026-07-01T00:00:00Z"))
    }

    @Test("every day from 1899 to 2101 at noon is the day Foundation counts")
    func everyDay() throws {
        var day = try Date("1899-01-01T12:00:00Z", strategy: .iso8601)
        let end = try Date("2101-12-31T12:00:00Z", strategy: .iso8601)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        while day <= end {
            let fields = calendar.dateComponents([.year, .month, .day], from: day)
            let text =
                "\(String(fields.year!).leftPadded(4))-\(String(fields.month!).leftPadded(2))-"
                + "\(String(fields.day!).leftPadded(2))T12:00:00Z"
            #expect(ISO8601Instant.parse(text) == day, "\(text)")
            day += 86_400
        }
    }

    @Test(
        "malformed, out of range or followed by other text: refused",
        arguments: [
            "", "2026-01-01", "2026-01-01T00:00:00", "2026-01-01 00:00:00Z", "2026-01-01T00:00Z", "20260101T000000Z",
            "2026-1-1T0:0:0Z", "+2026-01-01T00:00:00Z", "10000-01-01T00:00:00Z", " 2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z ", "2026-01-01T00:00:00Zjunk", "2026-02-30T00:00:00Z", "2023-02-29T00:00:00Z",
            "2100-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-04-31T00:00:00Z",
            "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:61Z",
            "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00,5Z", "2026-01-01T00:00:00+24:00",
            "2026-01-01T00:00:00+01:60", "2026-01-01T00:00:00+1", "2026-01-01T00:00:00+01:", "2026-01-01T00:00:00GMT",
            "２０２６-01-01T00:00:00Z",
        ])
    func refused(text: String) {
        #expect(ISO8601Instant.parse(text) == nil)
    }
}

extension String {
    /// The text with leading zeros up to `width` characters.
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
