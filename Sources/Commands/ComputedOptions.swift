// `--computed`, shared by the viewer and `list`: columns computed from each child by jq expressions.
import ArgumentParser
import Headless
import JSONTree
import ViewerCore

struct ComputedOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A column computed from each child by a jq expression, after the others (or where --columns names it): "
            + "'ratio = .score / .level' or the expression alone (repeat for more; = adds one in the viewer).",
        valueName: "name = expr"))
    var computed: [String] = []

    /// The columns, after `configured` (the configuration's); a bad one names its flag.
    func columns(after configured: [ComputedColumn] = []) throws(CommandError) -> [ComputedColumn] {
        var columns = configured
        for text in computed {
            do { columns.append(try ComputedColumn(definition: text)) } catch {
                throw CommandError("--computed \(JSON.string(text).serializedString()): \(error)")
            }
        }
        return columns
    }
}
