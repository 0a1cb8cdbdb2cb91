// What `serve` is asked to serve: a file, a folder of them, or named databases; and the rules a
// Firebase project's `firebase.json` names.
import FileStore
import Foundation
import JSONTree

/// A database `serve` serves: its name (a request's `ns`) and its file.
public struct ServedSource: Sendable, Equatable {
    public let name: String
    public let path: String
}

/// The databases to serve: `source` alone (a file, or `-`), each `.json`/`.jsonl`/`.ndjson` file
/// of a folder (named by its base name), and each `--namespace NAME=FILE`.
/// - Throws: `CommandError` (status 2) for a `NAME=FILE` without its `=`, an empty folder, or
///   nothing to serve.
public func servedSources(_ source: String?, namespaces: [String]) throws(CommandError) -> [ServedSource] {
    var sources = [ServedSource]()
    if let source {
        var isFolder: ObjCBool = false
        if source != "-", FileManager.default.fileExists(atPath: source, isDirectory: &isFolder), isFolder.boolValue {
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: source)) ?? []).sorted()
            // Rules files and a Firebase project's configuration are not databases.
            for file in files where [".json", ".jsonl", ".ndjson"].contains(where: file.hasSuffix)
                && !file.hasSuffix(".rules.json") && file != "firebase.json" {
                sources.append(ServedSource(name: String(file.prefix { $0 != "." }), path: source + "/" + file))
            }
            if sources.isEmpty { throw CommandError("\(source) holds no .json, .jsonl or .ndjson file to serve") }
        } else {
            sources.append(ServedSource(name: String((source as NSString).lastPathComponent.prefix { $0 != "." }), path: source))
        }
    }
    for text in namespaces {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else {
            throw CommandError("--namespace takes NAME=FILE, not '\(text)'")
        }
        sources.append(ServedSource(name: String(text[..<equals]), path: String(text[text.index(after: equals)...])))
    }
    if sources.isEmpty { throw CommandError("nothing to serve: give a file, a folder of them, or --namespace NAME=FILE") }
    return sources
}

/// The rules file a Firebase project's `firebase.json` names for the Realtime Database
/// (`"database": {"rules": "database.rules.json"}`, or the first of a list of them), as a path
/// beside the configuration; nil when it names none.
/// - Throws: `CommandError` when the file cannot be read or is not valid JSON (line and column).
public func firebaseConfigRules(_ path: String) throws(CommandError) -> String? {
    let bytes: [UInt8]
    do { bytes = try readInput(path) } catch { throw CommandError("\(error)", at: path) }
    let config: JSON
    do { config = try JSONDocument(parsing: bytes).root.json } catch {
        throw CommandError(error.message, at: "\(path):\(error.line):\(error.column)")
    }
    let database = config["database"].flatMap { $0.arrayValue?.first ?? $0 }
    guard let rules = database?["rules"]?.stringValue else { return nil }
    if rules.hasPrefix("/") { return rules }
    let folder = (path as NSString).deletingLastPathComponent
    return folder.isEmpty ? rules : folder + "/" + rules
}
