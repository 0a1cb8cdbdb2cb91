// What the viewer needs from outside, injected so that it runs in a test as on a terminal:
// the clock, the terminal's abilities, and the effects it asks the terminal for.
#if canImport(Glibc)
import Glibc
#endif
import TableUI

/// The viewer's time: a monotonic clock for animations, and the wall-clock time of day shown
/// beside a revision's number.
public struct ViewerClock {
    /// Monotonic seconds (the table's animation clock).
    public var now: () -> Double
    /// The local time of day, `HH:MM:SS`.
    public var timeOfDay: () -> String

    public init(now: @escaping () -> Double, timeOfDay: @escaping () -> String) {
        self.now = now
        self.timeOfDay = timeOfDay
    }

    /// The system's clocks.
    public static var system: ViewerClock { ViewerClock(now: TableClock.now, timeOfDay: wallClockTime) }
}

/// Something the viewer asks of the terminal beyond drawing into its canvas.
public enum ViewerEffect: Hashable, Sendable {
    /// Set the terminal's clipboard to this text (OSC 52).
    case copyToClipboard(String)
    /// Clear and redraw the whole screen (Ctrl-L).
    case repaintFully
}

/// The terminal's abilities and the viewer's way to reach it.
public struct ViewerEnvironment {
    /// The terminal shows UTF-8 (arrows and marks; otherwise ASCII stand-ins).
    public var unicode: Bool
    public var colors: ColorSupport
    public var clock: ViewerClock
    /// Carries out an effect (on a terminal: writes its bytes).
    public var perform: (ViewerEffect) -> Void

    public init(unicode: Bool = true, colors: ColorSupport = .none, clock: ViewerClock = .system,
                perform: @escaping (ViewerEffect) -> Void = { _ in }) {
        self.unicode = unicode
        self.colors = colors
        self.clock = clock
        self.perform = perform
    }

    var theme: TableTheme { .standard(colors: colors, unicode: unicode) }
}

/// The local time of day, `HH:MM:SS`.
func wallClockTime() -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
}
