// The bytes the whole server may hold for its clients, and each connection's share of them.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One byte budget for what clients make the server hold (messages being received, payloads
/// once parsed, onDisconnect writes kept for later): a charge that would pass the connection's
/// share or the total is refused, and the connection is closed with the reason.
final class MemoryBudget: Sendable {
    /// The whole budget.
    let total: Int
    /// What one connection may hold at once.
    let share: Int
    private let used = Atomic<Int>(0)

    init(total: Int) {
        self.total = max(total, 1 << 20)
        // A sixteenth each, and never less than one message's worth: a few clients can each send
        // the largest message, and no one client can hold the server.
        share = max(self.total / 16, min(self.total, 32 << 20))
    }

    /// The default budget: a quarter of the machine's memory.
    static var machineDefault: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, size > 0 else { return 1 << 30 }
        return pages.multipliedReportingOverflow(by: size).overflow ? Int.max / 4 : pages * size / 4
    }

    /// Bytes held now, by every connection.
    var inUse: Int { used.load(ordering: .relaxed) }

    /// Takes `bytes` from the total; false (nothing taken) when it does not have them.
    func take(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + bytes <= total else { return false }
            let (exchanged, original) = used.compareExchange(expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    func give(_ bytes: Int) {
        used.subtract(bytes, ordering: .relaxed)
    }
}

/// One connection's charges against the budget; what it holds goes back when it ends.
final class MemoryAccount: Sendable {
    let budget: MemoryBudget
    private let held = Mutex(0)

    init(_ budget: MemoryBudget) { self.budget = budget }

    /// Why `bytes` more cannot be held, or nil once they are charged.
    func charge(_ bytes: Int) -> String? {
        held.withLock { held -> String? in
            guard held + bytes <= budget.share else {
                return "the connection would hold \(megabytes(held + bytes)) at once, past its share of \(megabytes(budget.share))"
            }
            guard budget.take(bytes) else { return "the server holds its whole memory budget (\(megabytes(budget.total))) for its clients" }
            held += bytes
            return nil
        }
    }

    func release(_ bytes: Int) {
        held.withLock { held in
            let back = min(bytes, held)
            held -= back
            budget.give(back)
        }
    }

    /// Gives back everything still held (the connection ended).
    func close() {
        held.withLock { held in
            budget.give(held)
            held = 0
        }
    }

    var holding: Int { held.withLock { $0 } }
}

private func megabytes(_ bytes: Int) -> String {
    bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(bytes) bytes"
}

/// What a JSON text costs once parsed into values: its bytes, and about 48 bytes a value (a
/// `JSON` case with its storage). Counted without parsing, so that a costly message is refused
/// before it is parsed.
func parsedCost(_ text: some Collection<UInt8>) -> Int {
    var values = 1
    var inString = false
    var escaped = false
    for b in text {
        if inString {
            if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
        } else if b == 0x22 {
            inString = true
        } else if b == 0x2C || b == 0x3A || b == 0x5B || b == 0x7B {
            // `,` `:` `[` `{`: each starts (about) one value more.
            values += 1
        }
    }
    return text.count + values * 48
}
