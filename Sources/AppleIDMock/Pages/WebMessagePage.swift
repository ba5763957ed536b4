/// The popup page of `response_mode=web_message`: posts the result message (a JSON string) to
/// `window.opener` with the return URL's origin as target origin, then closes. The message and
/// origin travel in HTML-escaped `data-` attributes, so the script itself is the same on every page.
enum WebMessagePage {
    /// The script of every result page (static: no request data is interpolated into it).
    static let script = """
        (function () {
          var main = document.getElementById("web-message");
          if (!window.opener || window.opener === window) {
            document.getElementById("no-opener").hidden = false;
            return;
          }
          window.opener.postMessage(main.getAttribute("data-message"), main.getAttribute("data-target-origin"));
          document.getElementById("status").textContent = "You can close this window.";
          window.close();
        })();
        """

    /// The page posting `message` to `targetOrigin`.
    static func render(message: String, targetOrigin: String) -> String {
        let body = """
            <main id="web-message" data-message="\(message.htmlEscaped)" data-target-origin="\(targetOrigin.htmlEscaped)">
            <h1>Sign in with Apple</h1>
            <p id="status">Returning to the app…</p>
            <p id="no-opener" class="note" hidden>apple-id-mock: this window has no <code>window.opener</code> to post the result to (was it opened by <code>AppleID.auth.signIn()</code>, and does the opener send <code>Cross-Origin-Opener-Policy: same-origin</code>? Use <code>same-origin-allow-popups</code>). The message for <code>\(targetOrigin.htmlEscaped)</code> was: <code id="message">\(message.htmlEscaped)</code></p>
            </main>
            <script>
            \(script)
            </script>
            """
        return PageLayout.document(title: "Sign in with Apple", body: body)
    }
}
