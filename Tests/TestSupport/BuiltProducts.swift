// Finding the programs `swift build --build-tests` builds beside the test bundle.
import Foundation

/// The path of the built product `name` (e.g. `synctable`, `tabledemo`, `synctable-bench`):
/// the nearest folder above the running test executable that holds it.
/// - Throws: `MissingProduct` when it is not built.
public func builtProduct(_ name: String) throws -> String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
    while dir.path != "/" {
        let candidate = dir.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    throw MissingProduct(name: name)
}

public struct MissingProduct: Error, CustomStringConvertible {
    public let name: String
    public var description: String { "\(name) is not built beside the tests; run `make test`, or `swift build --build-tests` in the configuration you test" }
}
