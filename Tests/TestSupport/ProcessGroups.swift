// Whether the processes a test started are gone, and waiting for a condition without a tight timing assert.
import Foundation

/// Whether no process of group `group` is alive (a zombie is not: it has ended, and waits for a
/// parent, which may be a container's init that never reaps).
public func processGroupIsGone(_ group: pid_t) -> Bool {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return !entries.contains { entry in
        guard Int32(entry) != nil, let stat = readFileText("/proc/\(entry)/stat"), let close = stat.lastIndex(of: ")") else { return false }
        // After the name: state, parent, process group.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 2 && fields[0] != "Z" && Int32(fields[2]) == group
    }
}

/// Polls `condition` every 20 ms for up to `seconds`; whether it came to hold.
public func eventually(seconds: Double = 15, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
