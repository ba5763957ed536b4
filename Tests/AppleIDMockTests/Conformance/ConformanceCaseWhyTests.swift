import Testing

@testable import AppleIDMock

/// Every case's doc line says what is sent, what a correct backend does, and the field incident
/// behind it (a reported issue, an advisory or the reference's section).
@Suite("Backend conformance: each case's why")
struct ConformanceCaseWhyTests {
    /// A reference to a reported incident: `#1234`, `CVE-…`, `GHSA-…` or `§19`.
    private static func citesIncident(_ text: String) -> Bool {
        text.contains(/#\d+|CVE-\d{4}-\d+|GHSA-[a-z0-9]{4}|§\d+/)
    }

    /// Says what a correct backend does.
    private static func saysWhatIsRight(_ text: String) -> Bool {
        text.contains(/\bmust\b(?!-)|\bshould\b|noted either way/)
    }

    @Test("each case's why, on each path it arrives on, names what is right and an incident")
    func everyWhy() {
        for testCase in ConformanceCase.allCases {
            for path in ConformancePath.allCases where testCase.paths.contains(path) {
                let why = testCase.why(on: path)
                #expect(Self.citesIncident(why), "\(testCase.rawValue) on \(path.rawValue) cites no incident: \(why)")
                #expect(Self.saysWhatIsRight(why), "\(testCase.rawValue) on \(path.rawValue): \(why)")
            }
        }
    }

    @Test("the rule finds what it looks for")
    func rule() {
        #expect(Self.citesIncident("x (omnivore #4651)"))
        #expect(Self.citesIncident("CVE-2018-0114"))
        #expect(Self.citesIncident("reference §19"))
        #expect(!Self.citesIncident("No aud: should be refused."))
        #expect(Self.saysWhatIsRight("must be refused"))
        #expect(!Self.saysWhatIsRight("a must-have"))
    }
}
