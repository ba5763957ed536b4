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

    /// The problems found, at most `JSONReader.keptProblems` per document.
    public var problems: [Problem]
    /// How many more problems there were than listed.
    public var omitted = 0

    init(problems: [Problem], omitted: Int = 0) {
        self.problems = problems
        self.omitted = omitted
    }

    /// A single problem.
    init(file: String, path: String = "$", reason: String) {
        self.problems = [Problem(file: file, path: path, reason: reason)]
    }

    public var description: String {
        let lines = problems.map { "\($0.file): \($0.path): \($0.reason)" }
        return (lines + (omitted > 0 ? ["… and \(omitted) more problems"] : [])).joined(separator: "\n")
    }
}
