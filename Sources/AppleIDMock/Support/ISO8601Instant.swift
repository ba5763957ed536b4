#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads an instant written as an ISO 8601 date-time (RFC 3339's profile of it), by arithmetic.
///
/// Accepted: `YYYY-MM-DDThh:mm:ss`, an optional fraction of a second (`.123`), then `Z` or an
/// offset (`+01:00`, `+0100` or `+01`); `t` and `z` may be lowercase. A leap second (`:60`) is the
/// instant after `:59`. Not accepted: `GMT` or `UTC` for `Z`, offsets with seconds, `24:00:00`.
/// Out-of-range fields (February 30th, 25 o'clock) and trailing text are refused, where
/// Foundation's `.iso8601` strategy rolls them over or ignores them. Days are counted in the
/// proleptic Gregorian calendar (Foundation's switches to the Julian before 1582; the mock's clock
/// starts in 1970). Foundation's parser also builds a calendar and an ICU time zone for every date
/// it reads.
enum ISO8601Instant {
    /// The instant `text` names, or `nil` when it is not such a date-time.
    static func parse(_ text: String) -> Date? {
        var reader = Reader(bytes: Array(text.utf8))
        return reader.instant()
    }

    /// Reads the fields left to right.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func instant() -> Date? {
            guard let year = number(digits: 4), skip("-"), let month = number(digits: 2), (1...12).contains(month),
                skip("-"), let day = number(digits: 2),
                (1...ISO8601Instant.days(inMonth: month, of: year)).contains(day),
                skip("T") || skip("t"), let hour = number(digits: 2), hour < 24, skip(":"),
                let minute = number(digits: 2), minute < 60, skip(":"), let second = number(digits: 2), second <= 60
            else { return nil }
            var fraction = 0.0
            if skip(".") {
                var scale = 0.1
                let start = position
                while let digit = digit() {
                    fraction += Double(digit) * scale
                    scale /= 10
                }
                guard position > start else { return nil }
            }
            guard let offset = offsetSeconds(), position == bytes.count else { return nil }
            let days = ISO8601Instant.daysSinceEpoch(year: year, month: month, day: day)
            let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
            return Date(timeIntervalSince1970: Double(seconds) + fraction)
        }

        /// `Z`, or `±hh`, `±hhmm`, `±hh:mm`, in seconds east of UTC.
        private mutating func offsetSeconds() -> Int? {
            if skip("Z") || skip("z") { return 0 }
            let sign: Int
            if skip("+") {
                sign = 1
            } else if skip("-") {
                sign = -1
            } else {
                return nil
            }
            guard let hours = number(digits: 2), hours < 24 else { return nil }
            var minutes = 0
            if position < bytes.count {
                _ = skip(":")
                guard let value = number(digits: 2), value < 60 else { return nil }
                minutes = value
            }
            return sign * (hours * 3_600 + minutes * 60)
        }

        private mutating func number(digits count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        private mutating func digit() -> Int? {
            guard position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) else {
                return nil
            }
            defer { position += 1 }
            return Int(bytes[position] - UInt8(ascii: "0"))
        }

        private mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }
    }

    /// Days in `month` (1...12) of the proleptic Gregorian `year`.
    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (negative before it), by Howard
    /// Hinnant's `days_from_civil`.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
