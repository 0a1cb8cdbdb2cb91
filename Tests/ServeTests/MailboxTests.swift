// A stream's mailbox: a burst of revisions kept in order up to its queue, coalesced past it.
import FileStore
import JSONTree
@testable import Serve
import Testing

@Suite struct MailboxTests {
    private func revision(_ number: Int, fileBytes: Int) -> Revision {
        Revision(number: number, document: JSONDocument(.number(JSONNumber(number))),
                 identity: FileIdentity(device: 1, inode: 1, size: Int64(fileBytes), modified: 0, changed: 0), publishedAt: 0)
    }

    /// The revisions the mailbox hands out, in order (a tick is handed out only when no revision
    /// is pending, and taking a revision clears it: one is posted before each take).
    private func drain(_ box: Mailbox) async -> [Int] {
        var numbers = [Int]()
        while true {
            box.post(.tick)
            guard case .revision(let revision) = await box.next() else { return numbers }
            numbers.append(revision.number)
        }
    }

    /// Small files: the first revisions of a burst each come out, the rest as the newest; an
    /// event stream's mailbox (a queue of one) keeps only the newest.
    @Test func aBurstIsKeptInOrderUpToTheQueueThenCoalesced() async {
        let session = Mailbox(limit: 256, unsentLimit: 1 << 20, queueLength: 8)
        let stream = Mailbox(limit: 256, unsentLimit: 1 << 20)
        for n in 1...10 {
            session.post(.revision(revision(n, fileBytes: 100)))
            stream.post(.revision(revision(n, fileBytes: 100)))
        }
        #expect(await drain(session) == [1, 2, 3, 4, 5, 6, 7, 10])
        #expect(await drain(stream) == [10])
    }

    /// Large files: a client that does not read holds one revision, not eight.
    @Test func largeRevisionsAreCoalescedWhateverTheQueue() async {
        let session = Mailbox(limit: 256, unsentLimit: 1 << 20, queueLength: 8)
        for n in 1...5 { session.post(.revision(revision(n, fileBytes: Mailbox.queueBytes / 2 + 1))) }
        #expect(await drain(session) == [5])
    }
}
