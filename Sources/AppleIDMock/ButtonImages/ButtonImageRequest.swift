/// What a request to Apple's button image endpoints asks for, read with Apple's documented rules
/// (reference §18): every parameter in its range or list, no unknown or repeated parameter. Apple
/// answers anything else with 404, and so does the mock (`read` returns the reason, for the log).
struct ButtonImageRequest: Sendable, Hashable {
    /// Which of the three endpoints.
    enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `/appleid/button`: logo and label centred.
        case centred
        /// `/appleid/button/left`: logo and label at chosen positions from the left.
        case left
        /// `/appleid/button/logo`: the logo alone, in a square.
        case logo
    }

    /// `color`.
    enum Colour: String, Sendable, Hashable, CaseIterable {
        case black
        case white
    }

    /// `type`: the label.
    enum Label: String, Sendable, Hashable, CaseIterable {
        case signIn = "sign-in"
        case `continue`

        /// The words on the button (the mock draws English in every locale).
        var text: String {
            switch self {
            case .signIn: "Sign in with Apple"
            case .continue: "Continue with Apple"
            }
        }
    }

    /// `logo-size` (left-aligned buttons).
    enum LogoSize: String, Sendable, Hashable, CaseIterable {
        case small
        case medium
        case large
    }

    /// The 37 `locale` values Apple lists.
    static let locales: Set<String> = [
        "ar_SA", "ca_ES", "cs_CZ", "da_DK", "de_DE", "el_GR", "en_GB", "en_US", "es_ES", "es_MX", "fi_FI", "fr_CA",
        "fr_FR", "hr_HR", "hu_HU", "id_ID", "it_IT", "iw_IL", "ja_JP", "ko_KR", "ms_MY", "nl_NL", "no_NO", "pl_PL",
        "pt_BR", "pt_PT", "ro_RO", "ru_RU", "sk_SK", "sv_SE", "th_TH", "tr_TR", "uk_UA", "vi_VI", "zh_CN", "zh_HK",
        "zh_TW",
    ]

    /// The parameters each endpoint takes.
    static func parameterNames(of kind: Kind) -> Set<String> {
        switch kind {
        case .centred: ["height", "width", "color", "border", "type", "border_radius", "scale", "locale"]
        case .left:
            [
                "height", "width", "color", "border", "type", "border_radius", "scale", "locale", "label-position",
                "logo-position", "logo-size",
            ]
        case .logo: ["size", "color", "border", "border_radius", "scale"]
        }
    }

    var kind: Kind
    /// Logical size (the logo: `size` both ways); the image is `scale` times larger.
    var width: Int
    var height: Int
    var colour = Colour.black
    var border = false
    var label = Label.signIn
    /// Percent of the height (50: fully round ends).
    var borderRadius = 15
    var scale = 1
    var locale = "en_US"
    /// Left-aligned only: where the label and the logo start, in logical pixels from the left
    /// (`nil`: laid out as the mock chooses).
    var labelPosition: Int?
    var logoPosition: Int?
    var logoSize = LogoSize.small

    /// The request of `kind` with `parameters`; throws why Apple would answer 404.
    static func read(_ kind: Kind, _ parameters: [(name: String, value: String)]) throws(Refusal) -> Self {
        var request = ButtonImageRequest(kind: kind, width: kind == .logo ? 30 : 140, height: 30)
        var seen = Set<String>()
        let allowed = parameterNames(of: kind)
        for (name, value) in parameters {
            guard allowed.contains(name) else { throw Refusal("unknown parameter \(name)") }
            guard seen.insert(name).inserted else { throw Refusal("\(name) given twice") }
            try apply(name, value, to: &request)
        }
        if kind == .left, let position = request.labelPosition, position * 2 > request.width {
            throw Refusal("label-position \(position) is more than half the width \(request.width)")
        }
        return request
    }

    /// Why a request gets 404.
    struct Refusal: Error, Sendable, Equatable {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func apply(_ name: String, _ value: String, to request: inout ButtonImageRequest) throws(Refusal) {
        func number(_ range: ClosedRange<Int>) throws(Refusal) -> Int {
            guard !value.isEmpty, value.utf8.count <= 4, value.utf8.allSatisfy({ (48...57).contains($0) }),
                let number = Int(value), range.contains(number)
            else { throw Refusal("\(name)=\(value) is not a whole number in \(range)") }
            return number
        }
        func choice<T: RawRepresentable & CaseIterable>(_: T.Type) throws(Refusal) -> T where T.RawValue == String {
            guard let parsed = T(rawValue: value) else {
                throw Refusal("\(name)=\(value) is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return parsed
        }
        switch name {
        case "height": request.height = try number(30...64)
        case "width": request.width = try number(130...375)
        case "size":
            let size = try number(30...64)
            request.width = size
            request.height = size
        case "color": request.colour = try choice(Colour.self)
        case "border":
            guard value == "true" || value == "false" else { throw Refusal("border=\(value) is not true or false") }
            request.border = value == "true"
        case "type": request.label = try choice(Label.self)
        case "border_radius": request.borderRadius = try number(0...50)
        case "scale": request.scale = try number(1...6)
        case "locale":
            guard locales.contains(value) else { throw Refusal("locale=\(value) is not one of Apple's") }
            request.locale = value
        case "label-position": request.labelPosition = try number(0...182)
        case "logo-position": request.logoPosition = try number(0...182)
        case "logo-size": request.logoSize = try choice(LogoSize.self)
        default: throw Refusal("unknown parameter \(name)")
        }
    }
}
