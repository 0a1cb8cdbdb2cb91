// `events` and `push` on JSON Lines files and on standard input, run as processes.
import Foundation
import JSONTree
import Testing
import TestSupport

/// `synctable ARGUMENTS` running in `directory`, its output read line by line as it is written.
private func streaming(_ arguments: [String], directory: String) throws -> ChildProcess {
    try ChildProcess([try synctableBinary()] + arguments, directory: directory)
}
