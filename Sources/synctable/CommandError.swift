// The one error a command ends with: printed once, by `SyncTable.main`, as
// `synctable: error: MESSAGE`, with its exit status.

/// A problem that ends a command: a bad flag, a file that cannot be read, a terminal that
/// cannot be used. Commands throw it; only `SyncTable.main` prints it.
struct CommandError: Error, CustomStringConvertible {
    let message: String
    /// 2 for a problem with the command line, its file or the terminal; 1 for a failure while running.
    let exitCode: Int32

    init(_ message: String, exitCode: Int32 = 2) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }
}
