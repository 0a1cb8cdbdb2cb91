// Child processes for the conformance tests: the Admin SDK's Python scripts and `synctable`.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FileStore
import JSONTree
import Testing
import TestSupport

extension ChildProcess {
    /// The next line of standard output as JSON; records an issue (with the child's standard
    /// error) when there is none.
    func readJSON(seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) -> JSON? {
        guard let line = readLine(seconds: seconds) else {
            Issue.record("no output from the child; its standard error: \(standardError())", sourceLocation: sourceLocation)
            return nil
        }
        guard let value = try? JSONDocument(parsing: line).root.json else {
            Issue.record("not JSON: \(line)", sourceLocation: sourceLocation)
            return nil
        }
        return value
    }
}

/// The Python of the virtual environment `scripts/ensure-firebase-admin.sh` makes (`make test`
/// runs it) with the Admin SDK installed.
func firebasePython() throws -> String {
    let root = packageRoot
    let python = root + "/.build/firebase-venv/bin/python"
    guard access(python, X_OK) == 0 else {
        throw HTTPTestError(description: "the Firebase Admin SDK is not installed: run scripts/ensure-firebase-admin.sh (make test does)")
    }
    return python
}

/// Starts one of the Admin SDK scripts of Tests/ServeTests/Python against `port`.
func adminSDK(_ script: String, port: Int, _ arguments: [String] = []) throws -> ChildProcess {
    let folder = packageRoot + "/Tests/ServeTests/Python"
    return try ChildProcess([try firebasePython(), folder + "/" + script, String(port)] + arguments,
                     environment: ["PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"])
}

/// Runs `synctable ARGUMENTS` in a process of its own to its end; its standard output (for what
/// must come from another process; `synctable(_:)` runs a command in this one).
func synctableProcess(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> (status: Int32, output: String) {
    let child = try ChildProcess([try builtProduct("synctable")] + arguments)
    child.closeInput()
    var lines = [String]()
    while let line = child.readLine() { lines.append(line) }
    let status = child.wait()
    if status != 0 { Issue.record("synctable \(arguments): \(child.standardError())", sourceLocation: sourceLocation) }
    return (status, lines.joined(separator: "\n"))
}
