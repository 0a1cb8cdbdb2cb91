// Finding a command's program before it runs, so that a name that is not there is said at once.
#if canImport(Glibc)
import Glibc
#endif

/// The path `execvp` would run for `name`: `name` itself when it holds a `/`, else the first
/// executable regular file called `name` in `$PATH` (the shell's default path without one).
/// - Returns: nil when there is none.
func executablePath(_ name: String) -> String? {
    guard !name.isEmpty else { return nil }
    if name.contains("/") { return isExecutableFile(name) ? name : nil }
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
    for folder in path.split(separator: ":", omittingEmptySubsequences: false) {
        // An empty entry is the current folder, as for execvp.
        let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + name
        if isExecutableFile(candidate) { return candidate }
    }
    return nil
}

private func isExecutableFile(_ path: String) -> Bool {
    var st = stat()
    guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
    return access(path, X_OK) == 0
}
