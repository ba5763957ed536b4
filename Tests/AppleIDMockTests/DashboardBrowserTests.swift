import Foundation
import Testing

/// The dashboard in a real browser: `Tests/browser` (pytest + Selenium) drives Debian's chromium
/// through Debian's chromedriver against the built `apple-id-mock`, including pitfall 1 (a
/// `form_post` from another site arrives without the app's `SameSite=Lax` cookie).
@Suite("Dashboard in a real browser", .tags(.live))
struct DashboardBrowserTests {
    @Test("Tests/browser passes in chromium", .enabled(if: BrowserSuite.shouldRun))
    func browserSuite() async throws {
        #expect(
            BrowserSuite.isAvailable,
            "needs chromium, chromium-driver (apt) and Tests/browser/requirements.txt (pip)")
        let executable = try #require(ChildServers.executable)
        let (status, output) = try await PythonScript.run(
            ["-m", "pytest", "-q", "-p", "no:cacheprovider", "Tests/browser"],
            environment: ["APPLE_ID_MOCK_BINARY": executable, "PYTHONDONTWRITEBYTECODE": "1"])
        #expect(status == 0, "browser tests:\n\(output)")
        #expect(output.contains(" passed"))
    }
}

/// Whether the browser suite can run here: Selenium and pytest importable, chromium and
/// chromedriver installed. CI sets `APPLE_ID_MOCK_REQUIRE_BROWSER=1` so that a missing piece fails
/// instead of skipping.
enum BrowserSuite {
    static var shouldRun: Bool {
        isAvailable || ProcessInfo.processInfo.environment["APPLE_ID_MOCK_REQUIRE_BROWSER"] == "1"
    }

    static let isAvailable: Bool = {
        let programs = ["chromium", "chromedriver"].allSatisfy { name in
            (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").contains {
                FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
            }
        }
        return programs && PythonScript.canImport(["selenium", "pytest"])
    }()
}
