/// Why a scenario file (or an admin request body) was refused: every problem with its file, JSON path
/// and reason, one per line.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
    /// One problem at one place.
    public struct Problem: Sendable, Equatable, Codable {
        /// The file (or request) the problem is in.
        public var file: String
        /// The JSON path, e.g. `$.users[1].email`.
        public var path: String
        /// What is wrong.
        public var reason: String
    }

    /// All problems found.
    public var problems: [Problem]

    public init(problems: [Problem]) {
        self.problems = problems
    }

    /// A single problem.
    public init(file: String, path: String = "$", reason: String) {
        self.problems = [Problem(file: file, path: path, reason: reason)]
    }

    public var description: String {
        problems.map { "\($0.file): \($0.path): \($0.reason)" }.joined(separator: "\n")
    }
}
