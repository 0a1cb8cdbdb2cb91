// The one error a command ends with: printed once, by `SyncTable.main`, with its exit status.

/// A problem that ends a command: a bad flag, a file that cannot be read, a terminal that
/// cannot be used. Commands throw it; only `SyncTable.main` prints it: as
/// `synctable: error: MESSAGE`, or, for a problem at a place in a file, as compilers print
/// theirs, `FILE[:LINE:COLUMN]: error: MESSAGE` (what editors and `validate` users read).
public struct CommandError: Error, CustomStringConvertible {
    public let message: String
    /// 2 for a problem with the command line, its file or the terminal; 1 for a failure while running.
    public let exitCode: Int32
    /// Where in a file the problem is: `FILE` or `FILE:LINE:COLUMN`.
    public let place: String?

    public init(_ message: String, exitCode: Int32 = 2, at place: String? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.place = place
    }

    public var description: String { message }

    /// The line printed for it.
    public var line: String { place.map { "\($0): error: \(message)" } ?? "synctable: error: \(message)" }
}
