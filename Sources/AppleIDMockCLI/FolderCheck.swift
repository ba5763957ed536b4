import ArgumentParser
import Foundation

/// Refuses, before a command starts, to read scenarios or keys from a folder that is not there,
/// in a line that names the folder it looked in (absolute, so a command run outside the checkout
/// says where) and the flag or environment variable that sets it.
struct FolderCheck {
    /// One folder a command reads.
    struct Folder {
        /// What it holds, for the message ("scenarios", "keys").
        var kind: String
        /// The path as given or defaulted.
        var path: String
        /// Where the path came from: a flag, a variable, an argument or the default.
        var source: String
        /// The flag and the variable that set it.
        var flag: String
        var variable: String
        /// What the folder should hold.
        var holds: String
    }

    /// Exits 1 with one line per missing folder; returns when every folder is a directory.
    static func require(_ folders: [Folder]) throws {
        let lines = folders.compactMap(problem)
        guard !lines.isEmpty else { return }
        FileHandle.standardError.write(Data(lines.map { "apple-id-mock: \($0)\n" }.joined().utf8))
        throw ExitCode(1)
    }

    /// The message for `folder`, or `nil` if it is a directory.
    static func problem(_ folder: Folder) -> String? {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory)
        if exists && isDirectory.boolValue { return nil }
        let absolute = URL(fileURLWithPath: folder.path).standardizedFileURL.path
        let what = exists ? "is not a folder" : "does not exist"
        return
            "no \(folder.kind) folder: \(absolute) \(what) (\(folder.source) \"\(folder.path)\", relative to \(FileManager.default.currentDirectoryPath)); set \(folder.flag) or \(folder.variable) to the folder with \(folder.holds)"
    }
}

extension LocationOptions {
    /// The scenarios folder, with where its path came from.
    var scenariosFolder: FolderCheck.Folder {
        FolderCheck.Folder(
            kind: "scenarios", path: resolvedScenariosDir,
            source: scenariosDir != nil
                ? "--scenarios-dir"
                : EnvironmentDefaults.value(EnvironmentDefaults.scenariosDir) != nil
                    ? EnvironmentDefaults.scenariosDir : "the default",
            flag: "--scenarios-dir", variable: EnvironmentDefaults.scenariosDir,
            holds: "the scenario files (*.json; scenarios/ in a checkout)")
    }

    /// The keys folder, with where its path came from.
    var keysFolder: FolderCheck.Folder {
        FolderCheck.Folder(
            kind: "keys", path: resolvedKeysDir,
            source: keysDir != nil
                ? "--keys-dir"
                : EnvironmentDefaults.value(EnvironmentDefaults.keysDir) != nil
                    ? EnvironmentDefaults.keysDir : "the default",
            flag: "--keys-dir", variable: EnvironmentDefaults.keysDir,
            holds: "signing/*.pem and developer/AuthKey_*.p8 (keys/ in a checkout)")
    }

    /// Exits 1 naming each missing folder of the scenarios and keys.
    func requireFolders() throws {
        try FolderCheck.require([scenariosFolder, keysFolder])
    }
}
