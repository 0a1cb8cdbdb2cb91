// The program's terminal: ncurses set up for a live table, and put back on every exit.
import CNcursesw
#if canImport(Glibc)
import Glibc
#endif

/// How many colours the table may use.
public enum ColorSupport: Hashable, Sendable {
    /// None (NO_COLOR, or a terminal without colours): attributes only.
    case none
    /// The 8 (or 16) basic colours.
    case basic
    /// 256 colours or more.
    case extended
}

/// Why the terminal could not be opened.
public struct TerminalError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The terminal, owned by one thread for the life of the program.
///
/// Opening it sets the locale (`setlocale(LC_ALL, "")`, falling back to C.UTF-8 for
/// character handling), starts ncurses with `newterm` (cbreak, no echo, keypad, `nonl`,
/// a 25 ms `ESCDELAY` so Esc is instant, wheel and click reporting, colours with the
/// terminal's default background when it has them), and turns on `idlok` so bands of
/// shifted rows go out as scrolls. `restore()` (also run on deinit, and — where the program
/// installed the handler, `restoreOnFatalSignals()` — on SIGINT, SIGTERM, SIGHUP and SIGQUIT,
/// and on crash signals before they take their default action) puts the terminal back. Resizes arrive as `Key.resize` (ncurses' own SIGWINCH handling).
///
/// ```swift
/// let terminal = try Terminal()
/// defer { terminal.restore() }
/// var fds = [pollfd(fd: terminal.inputFD, events: Int16(POLLIN), revents: 0)]
/// while running {
///     _ = poll(&fds, 1, timeoutMilliseconds)      // EINTR (a resize) is fine: read keys anyway
///     while let key = terminal.readKey() { ... }  // drain: ncurses may hold several keys
/// }
/// ```
public final class Terminal {
    public struct Options: Sendable {
        /// The terminal type; nil reads `TERM`.
        public var term: String?
        public var inputFD: Int32
        public var outputFD: Int32
        /// Report mouse wheel and clicks.
        public var mouse: Bool
        /// Milliseconds ncurses waits after Esc for the rest of an escape sequence.
        public var escapeDelay: Int
        /// Whether to use colours; nil follows `NO_COLOR` and the terminal description.
        public var colors: Bool?
        /// Restore the terminal on fatal signals (see `Terminal`), where the program installed the
        /// handler (`Terminal.restoreOnFatalSignals()`).
        public var catchSignals: Bool

        public init(term: String? = nil, inputFD: Int32 = 0, outputFD: Int32 = 1, mouse: Bool = true,
                    escapeDelay: Int = 25, colors: Bool? = nil, catchSignals: Bool = true) {
            self.term = term
            self.inputFD = inputFD
            self.outputFD = outputFD
            self.mouse = mouse
            self.escapeDelay = escapeDelay
            self.colors = colors
            self.catchSignals = catchSignals
        }
    }

    /// The descriptor to poll(2) for keys.
    public let inputFD: Int32
    public let colorSupport: ColorSupport
    /// Whether the locale encodes UTF-8 (otherwise the theme uses ASCII symbols).
    public let isUTF8: Bool
    /// Where the table draws.
    public let canvas: NcursesCanvas
    /// The table theme this terminal can show.
    public var theme: TableTheme { .standard(colors: colorSupport, unicode: isUTF8) }

    private let outputFD: Int32
    private let screen: OpaquePointer
    private let inFile: UnsafeMutablePointer<FILE>
    private let outFile: UnsafeMutablePointer<FILE>
    private var shellMode: termios
    private var previousHandlers = ArmedHandlers()
    private var previousMask = sigset_t()
    private var restored = false

    // ncurses has one current screen per process, so one Terminal at a time; ncurses is
    // only ever called from the thread that owns the terminal.
    nonisolated(unsafe) private static var isOpen = false

    public init(_ options: Options = Options()) throws(TerminalError) {
        guard !Terminal.isOpen else { throw TerminalError("the terminal is already open") }
        let envTerm = getenv("TERM").map { String(cString: $0) }
        guard let term = options.term ?? envTerm, !term.isEmpty else {
            throw TerminalError("TERM is not set, so the terminal type is unknown (try TERM=xterm-256color)")
        }
        guard isatty(options.inputFD) == 1 else { throw TerminalError("standard input is not a terminal") }
        guard isatty(options.outputFD) == 1 else { throw TerminalError("standard output is not a terminal") }

        _ = cn_setlocale_all()
        if cn_locale_is_utf8() == 0 { _ = cn_setlocale_ctype("C.UTF-8") }
        isUTF8 = cn_locale_is_utf8() != 0

        var mode = termios()
        _ = tcgetattr(options.outputFD, &mode)
        // Close-on-exec (`dup` clears the flag): the commands a viewer runs get no terminal.
        let inFD = fcntl(options.inputFD, F_DUPFD_CLOEXEC, 0)
        let outFD = fcntl(options.outputFD, F_DUPFD_CLOEXEC, 0)
        guard inFD >= 0, outFD >= 0, let inFile = fdopen(inFD, "r"), let outFile = fdopen(outFD, "w") else {
            throw TerminalError("cannot open the terminal: \(String(cString: strerror(errno)))")
        }
        guard let screen = newterm(term, outFile, inFile) else {
            fclose(inFile)
            fclose(outFile)
            throw TerminalError("unknown terminal type '\(term)' (no terminfo entry; try TERM=xterm-256color)")
        }
        _ = set_term(screen)
        // A terminal that cannot address the cursor (TERM=dumb, a printer) would show garbage.
        guard let cup = tigetstr("cup"), UInt(bitPattern: cup) != UInt.max else {
            _ = endwin()
            delscreen(screen)
            fclose(inFile)
            fclose(outFile)
            throw TerminalError("terminal type '\(term)' cannot move the cursor, so it cannot show a table (try TERM=xterm-256color)")
        }
        self.screen = screen
        self.inFile = inFile
        self.outFile = outFile
        self.inputFD = options.inputFD
        self.outputFD = options.outputFD
        self.shellMode = mode
        Terminal.isOpen = true

        let window = cn_stdscr()!
        _ = cbreak()
        _ = noecho()
        _ = nonl()
        _ = intrflush(window, false)
        _ = keypad(window, true)
        _ = nodelay(window, true)
        cn_set_escdelay(Int32(options.escapeDelay))
        _ = idlok(window, true)
        _ = leaveok(window, true)
        _ = curs_set(0)

        let noColorEnv = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        var support = ColorSupport.none
        var defaultColors = false
        if options.colors ?? !noColorEnv, has_colors() {
            _ = start_color()
            defaultColors = use_default_colors() == cn_ok()
            support = cn_colors() >= 256 ? .extended : .basic
        }
        colorSupport = support

        if options.mouse {
            let mask = cn_button1_pressed() | cn_button1_clicked_only() | cn_button4_pressed() | cn_button5_pressed()
            _ = mousemask(mask, nil)
            _ = mouseinterval(0)
        }
        canvas = NcursesCanvas(window: window, colorsEnabled: support != .none, defaultColors: defaultColors, unicode: isUTF8)

        if options.catchSignals {
            previousHandlers = armEmergencyRestore(fd: options.outputFD, bytes: restoreBytes(mouse: options.mouse),
                                                   shellMode: shellMode)
        }
        previousMask = unblock([SIGWINCH] + (options.catchSignals ? fatalSignals : []))
    }

    deinit { restore() }

    /// The next key, mouse event or resize, without waiting; nil when there is none.
    /// Call it until it returns nil after each wake-up: ncurses may hold several keys.
    public func readKey() -> Key? {
        guard !restored, let window = cn_stdscr() else { return nil }
        while true {
            var value: wint_t = 0
            let status = wget_wch(window, &value)
            if status == cn_err() { return nil }
            if let key = Key.decode(UInt32(value), isFunctionKey: status == cn_key_code_yes()) { return key }
        }
    }

    /// Puts `bytes` (read from the input by another thread while this one was busy) back in
    /// front of the input, in order: the next `readKey` calls decode them as typed.
    public func pushBack(_ bytes: [UInt8]) {
        guard !restored else { return }
        // ncurses' queue takes a pushed-back byte at its head: the last byte goes first.
        for byte in bytes.reversed() { _ = ungetch(Int32(byte)) }
    }

    /// Makes the next flush clear the screen and draw every cell again: for Ctrl-L, after
    /// another program wrote over the screen behind ncurses' back.
    public func repaintFully() {
        guard !restored else { return }
        _ = cn_clear_on_next_refresh()
    }

    /// Puts the terminal back as it was (ends ncurses, shows the cursor, leaves the
    /// alternate screen, restores the tty modes). Safe to call more than once.
    public func restore() {
        guard !restored else { return }
        restored = true
        disarmEmergencyRestore(previousHandlers)
        previousHandlers = ArmedHandlers()
        restoreSignalMask(previousMask)
        _ = endwin()
        delscreen(screen)
        fclose(inFile)
        fclose(outFile)
        _ = tcsetattr(outputFD, TCSADRAIN, &shellMode)
        Terminal.isOpen = false
    }

    /// The bytes the signal handler writes: mouse reporting off, then the terminal's own
    /// strings to reset attributes, show the cursor, leave keypad mode and the alternate screen.
    private func restoreBytes(mouse: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        func capability(_ name: String) -> [UInt8]? {
            guard let s = tigetstr(name), UInt(bitPattern: s) != UInt.max else { return nil }
            return Array(String(cString: s).utf8)
        }
        if mouse, capability("kmous") != nil {
            bytes += Array("\u{1b}[?1000l\u{1b}[?1002l\u{1b}[?1003l\u{1b}[?1006l".utf8)
        }
        for name in ["sgr0", "cnorm", "rmkx", "rmcup"] { bytes += capability(name) ?? [] }
        return bytes
    }
}
