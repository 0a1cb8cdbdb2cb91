// `--key`, `--delete-when`, `--rate`, `--record`, `--since` and `--until`: what is made of a
// source's records (upserts by key) and done with its revisions (rates, a journal, a time range).
import ArgumentParser
import Headless
import KeyedStore

struct RevisionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A log's records as upserts: each the new value of the child with this key, a jq path such as "
            + ".metadata.name (a record without one is an error row).", valueName: "expr"))
    var key: String?

    @Option(help: ArgumentHelp("With --key: a record this is true for removes its key's child (.type == \"DELETED\").", valueName: "expr"))
    var deleteWhen: String?

    @Option(help: ArgumentHelp(
        "A rate column: the per-second change of this numeric path between revisions, as $rate/PATH (a counter "
            + "that went down: reset); repeat for more.", valueName: "path"))
    var rate: [String] = []

    @Option(help: ArgumentHelp("Append every revision to this journal (JSON Lines: the whole value, then what each changed).", valueName: "file"))
    var record: String?

    @Option(help: ArgumentHelp("With --record: past this size the journal so far becomes FILE.1 (replacing it).", valueName: "bytes"))
    var recordMaxBytes: Int?

    @Option(help: ArgumentHelp("A journal from this time on (2026-12-05T03:00:00Z, 2026-12-05 03:00, 03:00 today).", valueName: "time"))
    var since: String?

    @Option(help: ArgumentHelp("A journal up to this time.", valueName: "time"))
    var until: String?

    func fold() throws(CommandError) -> KeyedFold? { try keyedFold(key: key, deleteWhen: deleteWhen) }

    func extras() throws(CommandError) -> RevisionExtras {
        try RevisionExtras(rates: rate, record: record, recordMaxBytes: recordMaxBytes, since: since, until: until)
    }
}
