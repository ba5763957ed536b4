extension String {
    /// The text escaped for HTML element content and double-quoted attribute values.
    var htmlEscaped: String {
        var result = ""
        result.reserveCapacity(count)
        for character in self {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}

/// The shared frame of the mock's HTML pages. Pages are small and few, so they are built with
/// escaped string interpolation rather than a template engine dependency.
enum PageLayout {
    /// A complete HTML document.
    static func document(title: String, body: String, autoSubmit: Bool = false) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title.htmlEscaped)</title>
        <style>
        body { font-family: -apple-system, "Helvetica Neue", Arial, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
        h1 { font-size: 1.5rem; } .note { color: #6e6e73; font-size: .9rem; } code { background: #f5f5f7; padding: 0 .2rem; }
        fieldset { border: 1px solid #d2d2d7; border-radius: .5rem; margin: 1rem 0; } label { display: block; margin: .4rem 0; }
        button { font-size: 1rem; padding: .5rem 1.2rem; border-radius: .5rem; border: 1px solid #1d1d1f; background: #fff; }
        button.primary { background: #1d1d1f; color: #fff; }
        </style>
        </head>
        <body\(autoSubmit ? " onload=\"document.forms[0].submit()\"" : "")>
        \(body)
        </body>
        </html>

        """
    }

    /// A hidden form input.
    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(name.htmlEscaped)\" value=\"\(value.htmlEscaped)\">"
    }
}
