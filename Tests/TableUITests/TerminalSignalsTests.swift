// The emergency restore of Terminal+Signals.swift, tested in a child process that crashes.
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TableUI
import TestSupport

@Suite struct TerminalSignalsTests {
    /// Issue 47: a stack overflow (a parser recursing 7,000 deep) left the terminal raw, as the
    /// handler had no stack to run on. In a child: arm the restore on a pipe, overflow the
    /// stack; the restoring bytes arrive, and the child still dies of SIGSEGV.
    @Test func aStackOverflowStillRestores() throws {
        let marker = Array("restored".utf8)
        let (status, received) = try inAChild { restoreFD in
            Terminal.restoreOnFatalSignals()  // as the program's edge does
            _ = armEmergencyRestore(fd: restoreFD, bytes: marker, shellMode: termios())
            _ = dive(0)
        }
        // WIFSIGNALED and WTERMSIG, which Swift does not import.
        #expect(status & 0x7F == SIGSEGV, "the child ended with status \(status)")
        #expect(received == marker)
    }

    /// Issue 48: a library changes nothing process-wide unless the program asks. A terminal armed
    /// without the program's handler (`restoreOnFatalSignals`) leaves a signal's action alone:
    /// in a child, SIGUSR1 ends it as before, and nothing is written.
    @Test func withoutTheProgramsHandlerASignalIsLeftAlone() throws {
        let (status, received) = try inAChild { restoreFD in
            // The test process's own settings aside: SIGUSR1 at its default action, let in.
            _ = signal(SIGUSR1, SIG_DFL)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            _ = armEmergencyRestore(fd: restoreFD, bytes: Array("restored".utf8), shellMode: termios())
            _ = kill(getpid(), SIGUSR1)
        }
        #expect(status & 0x7F == SIGUSR1, "the child ended with status \(status)")
        #expect(received.isEmpty)
    }

    /// Runs `body` in a forked child, given the write end of a pipe for the restoring bytes;
    /// the child's wait status and what it wrote there.
    private func inAChild(_ body: (Int32) -> Void) throws -> (status: Int32, received: [UInt8]) {
        let ends = try #require(closeOnExecPipe())
        let closeFrom = closeRange
        let child = fork()
        try #require(child >= 0)
        if child == 0 {
            // The pipe as 3, and no copy of another test's descriptors kept meanwhile.
            dup2(ends[1], 3)
            _ = closeFrom?(4, .max, 0)
            body(3)
            _exit(0)
        }
        close(ends[1])
        var status: Int32 = 0
        waitpid(child, &status, 0)
        var received = [UInt8](repeating: 0, count: 64)
        let count = read(ends[0], &received, received.count)
        close(ends[0])
        return (status, Array(received.prefix(max(count, 0))))
    }
}

/// Recurses until the stack is gone. Each frame's memory is read after the call below it
/// returns, by a function the optimizer does not look into, so no build turns the recursion
/// into a loop (an optimized one did, when the frame was read before the call).
@inline(never)
private func dive(_ depth: Int) -> Int {
    var frame = (depth, depth &+ 1, depth &+ 2, depth &+ 3)
    let deeper = dive(depth &+ 1)
    return deeper &+ withUnsafeMutableBytes(of: &frame) { opaqueCount($0) }
}

@_optimize(none)
private func opaqueCount(_ bytes: UnsafeMutableRawBufferPointer) -> Int { bytes.count }
