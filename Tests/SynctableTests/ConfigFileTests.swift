// The configuration file as the program reads it (from $XDG_CONFIG_HOME: an environment a
// process of its own is given).
import Foundation
import Testing
import TestSupport

@Suite("The configuration file, as the program reads it")
struct ConfigFileTests {
    @Test("a bad $XDG_CONFIG_HOME/synctable/config.json stops the viewer before it starts: file, line, column, status 2")
    func badConfigStopsTheViewer() throws {
        let folder = ScratchFolder("config")
        let configFolder = folder.file("xdg/synctable")
        try FileManager.default.createDirectory(atPath: configFolder, withIntermediateDirectories: true)
        let config = configFolder + "/config.json"
        try "{\n  \"flags\": {\"page-size\": \"ten\"}\n}\n".write(toFile: config, atomically: true, encoding: .utf8)
        let data = folder.file("data.json")
        try "{}".write(toFile: data, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = folder.file("xdg")
        environment["TERM"] = "xterm-256color"
        let result = try runProgram(try synctableBinary(), [data], environment: environment)
        #expect(result.status == 2)
        #expect(result.errors == "synctable: error: bad configuration: \(config):2:26: page-size: a whole number, 0 or more (the viewer did not start)\n")
    }
}
