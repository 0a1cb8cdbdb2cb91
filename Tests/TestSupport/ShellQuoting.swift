// Words for a shell command line (tmux runs its command through the shell).

/// `text` as one shell word, whatever it holds (a clone's path may have spaces).
public func shellQuoted(_ text: String) -> String {
    "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
}
