// A store whose earlier revisions are made on request (a journal replayed): its readers are
// given only its current revision, and a time machine reads the ones before it when the user
// steps to them.
import JSONTree

/// Revisions before a store's current one, each made when asked for.
public protocol RevisionArchive: AnyObject {
    /// The numbers of the revisions held, oldest first; the last is the store's current revision.
    var archivedRevisions: ClosedRange<Int> { get }
    /// Revision `number`'s document.
    func archivedDocument(_ number: Int) -> JSONDocument
    /// When revision `number` was made (seconds since 1970) and who wrote it, where known.
    func archivedStamp(_ number: Int) -> (time: Double, writer: String?)
    /// The children under `location` that revision `number` changed, each with its value in the
    /// revision before, when each was there in both and kept its place in key and priority order
    /// (not null or empty, no `.priority`); nil when that is not so or not known cheaply (a whole
    /// value recorded, a change at or above `location`): a reader then reads both documents.
    func archivedChildChanges(_ number: Int, under location: [String]) -> [(key: String, before: JSONDocument)]?
}
