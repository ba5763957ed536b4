import Foundation
import JWTKit

/// Turns one scenario file's JSON into a `Scenario`, checking types, unknown fields, formats and
/// cross-references (duplicate ids, unknown teams, malformed keys), and reporting all problems at once.
struct ScenarioDecoder {
    private var reader = JSONReader()
    private let file: String

    /// Decodes `data` read from `file` (the name used in messages) as scenario `name`.
    static func decode(_ data: Data, file: String, name: String) throws(ScenarioError) -> Scenario {
        let document: JSONValue
        do {
            // First for where it fails: line and column, and names given twice (which the parser
            // below would take silently, keeping one of the values).
            try JSONStrictCheck.check(data)
            document = try JSONValue.parse(data)
        } catch let problem as JSONStrictCheck.Problem {
            let reason = problem.isSyntax ? "not valid JSON: \(problem)" : problem.reason
            throw ScenarioError(file: file, path: problem.path.description, reason: reason)
        } catch {
            throw ScenarioError(file: file, reason: "not valid JSON: \(Self.describe(error))")
        }
        var decoder = ScenarioDecoder(file: file)
        let scenario = decoder.scenario(document, name: name)
        if let error = decoder.reader.error(file: file) { throw error }
        guard let scenario else { throw ScenarioError(file: file, reason: "not a scenario") }
        return scenario
    }

    private init(file: String) {
        self.file = file
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return String(describing: error)
    }

    // MARK: - Top level

    private mutating func scenario(_ value: JSONValue, name: String) -> Scenario? {
        let root = JSONPath.root
        let allowed: Set<String> = [
            "$schema", "description", "settings", "teams", "appGroups", "users", "events", "transfers",
        ]
        guard let members = reader.object(value, at: root, allowed: allowed) else { return nil }
        let description = members["description"].flatMap { reader.string($0, at: root.member("description")) } ?? ""
        let settings =
            members["settings"].map { MockSettings().applying($0, at: root.member("settings"), reader: &reader) }
            ?? MockSettings()
        let teams = list(members, "teams", at: root) { $0.team($1, at: $2) }
        let appGroups = list(members, "appGroups", at: root) { $0.appGroup($1, at: $2) }
        let users = list(members, "users", at: root) { $0.user($1, at: $2) }
        checkReferences(teams: teams, appGroups: appGroups, users: users)
        let events =
            members["events"] == nil
            ? []
            : list(members, "events", at: root) {
                $0.event($1, at: $2, appGroups: appGroups.map(\.value), users: users.map(\.value))
            }.map(\.value)
        let transfers =
            members["transfers"] == nil
            ? []
            : list(members, "transfers", at: root) {
                $0.transfer($1, at: $2, teams: teams.map(\.value), appGroups: appGroups.map(\.value))
            }
        var transferred: [String: JSONPath] = [:]
        for (transfer, path) in transfers {
            if let first = transferred[transfer.appGroupId] {
                reader.report(
                    path.member("appGroup"), "app group \"\(transfer.appGroupId)\" is already transferred at \(first)")
            }
            transferred[transfer.appGroupId] = path
        }
        return Scenario(
            name: name, source: file, description: description, settings: settings,
            teams: teams.map(\.value), appGroups: appGroups.map(\.value), users: users.map(\.value), events: events,
            transfers: transfers.map(\.value))
    }

    /// Reads the required array `name`, decoding each element and keeping its path.
    private mutating func list<T>(
        _ members: [String: JSONValue], _ name: String, at path: JSONPath,
        _ element: (inout ScenarioDecoder, JSONValue, JSONPath) -> T?
    ) -> [(value: T, path: JSONPath)] {
        guard let raw = reader.required(members, name, at: path),
            let elements = reader.array(raw, at: path.member(name))
        else { return [] }
        var result: [(value: T, path: JSONPath)] = []
        for (position, item) in elements.enumerated() {
            let itemPath = path.member(name).index(position)
            if let value = element(&self, item, itemPath) { result.append((value, itemPath)) }
        }
        return result
    }

    // MARK: - Teams

    private mutating func team(_ value: JSONValue, at path: JSONPath) -> Team? {
        guard
            let members = reader.object(value, at: path, allowed: ["teamId", "name", "developerKeys", "emailSources"])
        else {
            return nil
        }
        let teamId = requiredString(members, "teamId", at: path) {
            Self.isAppleIdentifier($0) ? nil : "a Team ID is 10 uppercase letters or digits"
        }
        let name = members["name"].flatMap { reader.string($0, at: path.member("name")) } ?? teamId ?? ""
        let keys = list(members, "developerKeys", at: path) { $0.developerKey($1, at: $2) }.map(\.value)
        var sources = EmailSources()
        if let raw = members["emailSources"] {
            sources = Self.emailSources(raw, at: path.member("emailSources"), reader: &reader)
        }
        guard let teamId else { return nil }
        return Team(teamId: teamId, name: name, developerKeys: keys, emailSources: sources)
    }

    private mutating func developerKey(_ value: JSONValue, at path: JSONPath) -> DeveloperKey? {
        guard let members = reader.object(value, at: path, allowed: ["keyId", "publicKey"]) else { return nil }
        let keyId = requiredString(members, "keyId", at: path) {
            Self.isAppleIdentifier($0) ? nil : "a Key ID is 10 uppercase letters or digits"
        }
        guard let pem = requiredString(members, "publicKey", at: path, check: { _ in nil }) else { return nil }
        let key: ES256PublicKey
        do {
            key = try ES256PublicKey(pem: pem)
        } catch {
            reader.report(
                path.member("publicKey"),
                "malformed key: expected a P-256 key in PEM (-----BEGIN PUBLIC KEY-----)")
            return nil
        }
        guard let keyId else { return nil }
        return DeveloperKey(keyId: keyId, publicKeyPEM: pem, publicKey: key)
    }

    // MARK: - App groups

    private mutating func appGroup(_ value: JSONValue, at path: JSONPath) -> AppGroup? {
        let allowed: Set<String> = ["id", "teamId", "primaryBundleId", "bundleIds", "servicesIds", "notificationUrl"]
        guard let members = reader.object(value, at: path, allowed: allowed) else { return nil }
        let id = requiredString(members, "id", at: path) { $0.isEmpty ? "must not be empty" : nil }
        let teamId = requiredString(members, "teamId", at: path) { _ in nil }
        let primary = requiredString(members, "primaryBundleId", at: path, check: Self.clientIdProblem)
        var bundleIds: [String] = []
        if let raw = members["bundleIds"], let elements = reader.array(raw, at: path.member("bundleIds")) {
            for (position, item) in elements.enumerated() {
                let itemPath = path.member("bundleIds").index(position)
                if let text = reader.string(item, at: itemPath) {
                    if let problem = Self.clientIdProblem(text) {
                        reader.report(itemPath, problem)
                    } else {
                        bundleIds.append(text)
                    }
                }
            }
        }
        let services =
            members["servicesIds"] == nil
            ? [] : list(members, "servicesIds", at: path) { $0.servicesId($1, at: $2) }.map(\.value)
        var notificationUrl: String?
        if let raw = members["notificationUrl"], raw != .null,
            let text = reader.string(raw, at: path.member("notificationUrl"))
        {
            if let problem = HTTPURLCheck.problem(text) {
                reader.report(path.member("notificationUrl"), problem)
            } else {
                notificationUrl = text
            }
        }
        guard let id, let teamId, let primary else { return nil }
        return AppGroup(
            id: id, teamId: teamId, primaryBundleId: primary, bundleIds: bundleIds, servicesIds: services,
            notificationUrl: notificationUrl)
    }

    private mutating func servicesId(_ value: JSONValue, at path: JSONPath) -> ServicesID? {
        guard let members = reader.object(value, at: path, allowed: ["identifier", "redirectUris"]) else { return nil }
        let identifier = requiredString(members, "identifier", at: path, check: Self.clientIdProblem)
        var uris: [String] = []
        if let raw = reader.required(members, "redirectUris", at: path),
            let elements = reader.array(raw, at: path.member("redirectUris"))
        {
            for (position, item) in elements.enumerated() {
                let itemPath = path.member("redirectUris").index(position)
                guard let text = reader.string(item, at: itemPath) else { continue }
                if let problem = HTTPURLCheck.problem(text) {
                    reader.report(itemPath, problem)
                } else if text.contains("#") {
                    reader.report(itemPath, "a return URL must not contain a #fragment")
                } else {
                    uris.append(text)
                }
            }
        }
        guard let identifier else { return nil }
        return ServicesID(identifier: identifier, redirectUris: uris)
    }

    // MARK: - Users

    private mutating func user(_ value: JSONValue, at path: JSONPath) -> User? {
        let allowed: Set<String> = [
            "key", "email", "name", "hideEmail", "realUserStatus", "emailVerified", "managedAccount", "orgId",
        ]
        guard let members = reader.object(value, at: path, allowed: allowed) else { return nil }
        let key = requiredString(members, "key", at: path) { key in
            Self.isPlainName(key) ? nil : "a user key is letters, digits, '.', '_' or '-'"
        }
        let managed = members["managedAccount"].flatMap { reader.bool($0, at: path.member("managedAccount")) } ?? false
        let email = requiredString(members, "email", at: path) { email in
            if email.isEmpty { return managed ? nil : "must not be empty (only managed accounts may lack an email)" }
            return Self.isEmail(email) ? nil : "not an email address"
        }
        var name: PersonName?
        if let raw = members["name"], raw != .null,
            let fields = reader.object(raw, at: path.member("name"), allowed: ["firstName", "lastName"])
        {
            name = PersonName(
                firstName: fields["firstName"].flatMap {
                    reader.string($0, at: path.member("name").member("firstName"))
                },
                lastName: fields["lastName"].flatMap { reader.string($0, at: path.member("name").member("lastName")) })
        }
        let hide = members["hideEmail"].flatMap { reader.bool($0, at: path.member("hideEmail")) } ?? false
        let status =
            members["realUserStatus"].flatMap { reader.integer($0, at: path.member("realUserStatus"), in: 0...2) } ?? 2
        let verified = members["emailVerified"].flatMap { reader.bool($0, at: path.member("emailVerified")) } ?? true
        var orgId: String?
        if let raw = members["orgId"], raw != .null {
            orgId = reader.string(raw, at: path.member("orgId"))
            if !managed {
                reader.report(path.member("orgId"), "orgId is only for managed accounts (set managedAccount: true)")
            }
        }
        guard let key, let email else { return nil }
        return User(
            key: key, email: email, name: name, hideEmail: hide, realUserStatus: status, emailVerified: verified,
            managedAccount: managed, orgId: orgId)
    }

    // MARK: - Events

    private mutating func event(_ value: JSONValue, at path: JSONPath, appGroups: [AppGroup], users: [User])
        -> ScheduledEvent?
    {
        guard let members = reader.object(value, at: path, allowed: ["type", "user", "appGroup", "at"]) else {
            return nil
        }
        let kind = reader.required(members, "type", at: path).flatMap {
            reader.choice($0, at: path.member("type"), of: LifecycleEvent.Kind.allCases.map(\.rawValue))
        }.flatMap(LifecycleEvent.Kind.init(rawValue:))
        let userKey = requiredString(members, "user", at: path) { key in
            users.contains { $0.key == key } ? nil : "unknown user \"\(key)\" (use a user key)"
        }
        var appGroupId: String?
        if let raw = members["appGroup"], let id = reader.string(raw, at: path.member("appGroup")) {
            let group = appGroups.first { group in
                group.id == id || group.primaryBundleId == id || group.bundleIds.contains(id)
                    || group.servicesIds.contains { $0.identifier == id }
            }
            if let group {
                appGroupId = group.id
            } else {
                reader.report(path.member("appGroup"), "unknown app group or client id \"\(id)\"")
            }
        }
        if let kind, kind.needsAppGroup, members["appGroup"] == nil {
            reader.report(
                path.member("appGroup"), "\(kind.rawValue) needs an app group (its id or one of its client ids)")
        }
        if kind == .accountDelete, members["appGroup"] != nil {
            reader.report(path.member("appGroup"), "account-delete concerns the whole account: remove appGroup")
        }
        let at = members["at"].flatMap { reader.date($0, at: path.member("at")) }
        guard let kind, let userKey else { return nil }
        return ScheduledEvent(event: LifecycleEvent(kind: kind, userKey: userKey, appGroupId: appGroupId), at: at)
    }

    // MARK: - Transfers

    private mutating func transfer(_ value: JSONValue, at path: JSONPath, teams: [Team], appGroups: [AppGroup])
        -> ScheduledTransfer?
    {
        guard let members = reader.object(value, at: path, allowed: ["appGroup", "toTeam", "at"]) else { return nil }
        let group = requiredString(members, "appGroup", at: path) { id in
            appGroups.contains { $0.id == id } ? nil : "unknown app group \"\(id)\" (use an app group id)"
        }.flatMap { id in appGroups.first { $0.id == id } }
        let toTeam = requiredString(members, "toTeam", at: path) { id in
            teams.contains { $0.teamId == id } ? nil : "unknown team \"\(id)\""
        }
        if let group, let toTeam, group.teamId == toTeam {
            reader.report(path.member("toTeam"), "app group \"\(group.id)\" already belongs to team \(toTeam)")
        }
        let at = members["at"].flatMap { reader.date($0, at: path.member("at")) }
        guard let group, let toTeam, group.teamId != toTeam else { return nil }
        return ScheduledTransfer(appGroupId: group.id, toTeam: toTeam, at: at)
    }

    // MARK: - Cross-references

    private mutating func checkReferences(
        teams: [(value: Team, path: JSONPath)], appGroups: [(value: AppGroup, path: JSONPath)],
        users: [(value: User, path: JSONPath)]
    ) {
        var seen: [String: JSONPath] = [:]
        func unique(_ kind: String, _ id: String, at path: JSONPath, reader: inout JSONReader) {
            let slot = "\(kind)\u{0}\(id)"
            if let first = seen[slot] {
                reader.report(path, "duplicate \(kind) \"\(id)\" (first at \(first))")
            } else {
                seen[slot] = path
            }
        }
        for (team, path) in teams {
            unique("team id", team.teamId, at: path.member("teamId"), reader: &reader)
            for (position, key) in team.developerKeys.enumerated() {
                unique(
                    "key id", key.keyId, at: path.member("developerKeys").index(position).member("keyId"),
                    reader: &reader)
            }
        }
        let teamIds = Set(teams.map(\.value.teamId))
        for (group, path) in appGroups {
            unique("app group id", group.id, at: path.member("id"), reader: &reader)
            if !teamIds.contains(group.teamId) {
                reader.report(
                    path.member("teamId"),
                    "unknown team \"\(group.teamId)\"; teams: \(teamIds.sorted().joined(separator: ", "))")
            }
            unique("client id", group.primaryBundleId, at: path.member("primaryBundleId"), reader: &reader)
            for (position, id) in group.bundleIds.enumerated() {
                unique("client id", id, at: path.member("bundleIds").index(position), reader: &reader)
            }
            for (position, services) in group.servicesIds.enumerated() {
                unique(
                    "client id", services.identifier,
                    at: path.member("servicesIds").index(position).member("identifier"), reader: &reader)
            }
            for id in [group.primaryBundleId] + group.bundleIds + group.servicesIds.map(\.identifier)
            where id.hasPrefix(group.teamId + ".") {
                reader.report(path, "client id \"\(id)\" must not start with the Team ID prefix")
            }
        }
        for (user, path) in users {
            unique("user key", user.key, at: path.member("key"), reader: &reader)
            if !user.email.isEmpty {
                unique("user email", user.email.lowercased(), at: path.member("email"), reader: &reader)
            }
        }
    }

    // MARK: - Helpers

    private mutating func requiredString(
        _ members: [String: JSONValue], _ name: String, at path: JSONPath, check: (String) -> String?
    ) -> String? {
        guard let raw = reader.required(members, name, at: path), let text = reader.string(raw, at: path.member(name))
        else {
            return nil
        }
        if let problem = check(text) {
            reader.report(path.member(name), problem)
            return nil
        }
        return text
    }

    static func isAppleIdentifier(_ text: String) -> Bool {
        text.count == 10 && text.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
    }

    /// Whether `text` is one or more ASCII letters, digits, `.`, `_` or `-`: user keys, client ids
    /// and scenario names.
    static func isPlainName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
    }

    static func clientIdProblem(_ text: String) -> String? {
        isPlainName(text) ? nil : "a client id is letters, digits, '.', '-' or '_' (reverse-DNS, e.g. com.example.web)"
    }

    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !text.contains(" ")
    }
}
