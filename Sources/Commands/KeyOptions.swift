// `--key` and `--delete-when`: a log's records as upserts of one child per key.
import ArgumentParser
import Headless
import KeyedStore

struct KeyOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A log's records as upserts: each the new value of the child with this key, a jq path such as "
            + ".metadata.name (a record without one is an error row).", valueName: "expr"))
    var key: String?

    @Option(help: ArgumentHelp("With --key: a record this is true for removes its key's child (.type == \"DELETED\").", valueName: "expr"))
    var deleteWhen: String?

    func fold() throws(CommandError) -> KeyedFold? { try keyedFold(key: key, deleteWhen: deleteWhen) }
}
