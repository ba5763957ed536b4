/// Apple's error page for a misconfigured authorization request (HTTP 400, no redirect).
enum AuthorizeErrorPage {
    /// The page for `error`, with a developer note from the mock when there is one.
    static func render(_ error: AppleError) -> String {
        let note = error.logReason.flatMap { $0 == error.description ? nil : $0 }
        let body = """
            <h1>Sign in with Apple</h1>
            <p>Your request could not be completed because of an error. Please try again later.</p>
            <p><strong id="error">\(error.code.htmlEscaped)</strong></p>
            \(error.description.map { "<p id=\"error_description\">\($0.htmlEscaped)</p>" } ?? "")
            \(note.map { "<p class=\"note\">apple-id-mock: \($0.htmlEscaped)</p>" } ?? "")
            """
        return PageLayout.document(title: "Sign in with Apple – \(error.code)", body: body)
    }
}
