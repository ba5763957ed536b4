import Foundation
import Testing

/// The email relay with real clients (`Tests/mail`, pytest): Python's smtplib, Django's SMTP
/// backend, Debian's swaks, an aiosmtpd sink for forwarding and replies, hostile clients, and
/// replicas on PostgreSQL when `APPLE_ID_MOCK_TEST_POSTGRES_URL` is set.
@Suite("Email relay with real clients", .tags(.live))
struct MailClientsLiveTests {
    @Test("Tests/mail passes", .enabled(if: MailClientSuite.shouldRun))
    func mailSuite() async throws {
        #expect(
            MailClientSuite.isAvailable,
            "needs Tests/mail/requirements.txt (pip: pytest, aiosmtpd, Django) and swaks (apt)")
        let executable = try #require(ChildServers.executable)
        let (status, output) = try await PythonScript.run(
            ["-m", "pytest", "-q", "-p", "no:cacheprovider", "Tests/mail"],
            environment: ["APPLE_ID_MOCK_BINARY": executable, "PYTHONDONTWRITEBYTECODE": "1"])
        #expect(status == 0, "mail tests:\n\(output)")
        #expect(output.contains(" passed"))
    }
}

/// Whether the mail suite can run here. CI sets `APPLE_ID_MOCK_REQUIRE_MAIL=1` so that a missing
/// piece fails instead of skipping.
enum MailClientSuite {
    static var shouldRun: Bool {
        isAvailable || ProcessInfo.processInfo.environment["APPLE_ID_MOCK_REQUIRE_MAIL"] == "1"
    }

    static let isAvailable: Bool = PythonScript.canImport(["pytest", "aiosmtpd", "django"])
}
