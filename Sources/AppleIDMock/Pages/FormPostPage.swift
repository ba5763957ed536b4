/// The page Apple returns for `response_mode=form_post`: a form that submits itself to the return
/// URL (a cross-site top-level POST from this server's origin), with a button when scripts are off.
enum FormPostPage {
    static func render(action: String, fields: [(String, String)]) -> String {
        let inputs = fields.map { PageLayout.hidden($0.0, $0.1) }.joined(separator: "\n")
        let body = """
            <form method="post" action="\(action.htmlEscaped)">
            \(inputs)
            <noscript><button type="submit" class="primary">Continue</button></noscript>
            </form>
            """
        return PageLayout.document(title: "Sign in with Apple", body: body, autoSubmit: true)
    }
}
