// swift-tools-version:6.1
// (6.1 for `traits:` on a dependency.)
import PackageDescription
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Layers, each depending only on those above it:
// CEngineMemory, CXXHash → EngineMemory (the engine's memory, mappings, threads and signals, and the write
// path's file calls: one way into the kernel);
// CJSONScan, EngineMemory → JSONTree → LiveQuery → StoreInterface → FileStore, RemoteStore (a
// database URL as a live store: REST and its event stream, on AsyncHTTPClient), SyncedArray;
// Sequences (one longest increasing subsequence) → LiveQuery, TableUI, LiveViews;
// SeededRandom (one seeded generator) → the bench, the table demo, the tests' support;
// FileStore, Rules → Serve (on Hummingbird); JSONTree → Rules;
// CRE2 → LinearRegex → Rules, Expressions (regular expressions in linear time, on RE2); CJQ → Expressions (libjq);
// StoreInterface → CommandStore (a command run every interval) → Headless;
// StoreInterface, Expressions → KeyedStore (a log folded by a key) → Headless;
// StoreInterface → Journal (revisions recorded as JSON Lines, and replayed as a store) → Headless;
// StoreInterface → RateStore (per-second rates of numeric columns as columns) → ViewerCore, Headless;
// CNcursesw → TableUI → Charts; LiveQuery → LiveViews; ViewerCore (SyncedArray + LiveViews + TableUI + Charts + RateStore);
// Headless (the stores and outputs of the commands) → Commands (argument parsing; every command
// runnable in-process) → synctable (the program's edge: its process-wide settings and signals).
//
// Linux only: the store watches files with inotify and the code uses Glibc.
let package = Package(
    name: "SyncTable",
    products: [
        .library(name: "JSONTree", targets: ["JSONTree"]),
        .library(name: "LiveQuery", targets: ["LiveQuery"]),
        .library(name: "Expressions", targets: ["Expressions"]),
        .library(name: "StoreInterface", targets: ["StoreInterface"]),
        .library(name: "FileStore", targets: ["FileStore"]),
        .library(name: "CommandStore", targets: ["CommandStore"]),
        .library(name: "KeyedStore", targets: ["KeyedStore"]),
        .library(name: "Journal", targets: ["Journal"]),
        .library(name: "RateStore", targets: ["RateStore"]),
        .library(name: "SyncedArray", targets: ["SyncedArray"]),
        .library(name: "Rules", targets: ["Rules"]),
        .library(name: "Serve", targets: ["Serve"]),
        .library(name: "RemoteStore", targets: ["RemoteStore"]),
        .library(name: "TableUI", targets: ["TableUI"]),
        .library(name: "Charts", targets: ["Charts"]),
        .library(name: "ViewerCore", targets: ["ViewerCore"]),
        .library(name: "LiveViews", targets: ["LiveViews"]),
        .library(name: "Headless", targets: ["Headless"]),
        .executable(name: "synctable", targets: ["synctable"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // No traits: the server needs neither swift-configuration nor full Foundation, and
        // leaving them out saves their build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // SIMD byte scanning for the parser (C: Swift has no portable movemask or shuffle).
        .target(name: "CJSONScan"),
        // What Swift cannot ask of the kernel itself: a file's mapping guarded by a SIGBUS
        // handler, mremap (variadic), names the Glibc module leaves out.
        .target(name: "CEngineMemory"),
        // xxHash (Debian's libxxhash-dev): a page's fingerprint at memory speed, where a followed
        // large file's pages are compared with its last revision's (no digest of swift-crypto
        // reads 143 MB within an edit's few milliseconds).
        .systemLibrary(name: "CXXHash", providers: [.apt(["libxxhash-dev"])]),
        // The engine's blocks of memory, mappings, threads and signals, behind `EngineTuning`
        // (`.plain` unless a program opts in); used by JSONTree, LiveQuery, FileStore and
        // LiveViews (its statistics' second thread) only.
        .target(name: "EngineMemory", dependencies: ["CEngineMemory", "CXXHash"]),
        .target(name: "JSONTree", dependencies: ["CJSONScan", "EngineMemory"], linkerSettings: [.linkedLibrary("m")]),
        // One longest increasing subsequence for every module that keeps rows in place.
        .target(name: "Sequences"),
        // One seeded random generator (SplitMix64) for the bench's inputs, the demo and the property tests.
        .target(name: "SeededRandom"),
        .target(name: "LiveQuery", dependencies: ["JSONTree", "EngineMemory", "Sequences"]),
        // RE2 (Debian's libre2-dev), C++ behind a small C face: a pattern from a client or a
        // prompt can make matching slow in a backtracking engine, never in RE2.
        .target(name: "CRE2", linkerSettings: [.linkedLibrary("re2")]),
        .target(name: "LinearRegex", dependencies: ["CRE2"]),
        // libjq (Debian's libjq-dev, jq 1.6; no pkg-config file there): the whole jq language for
        // the expressions outside the native subset.
        .systemLibrary(name: "CJQ", providers: [.apt(["libjq-dev"])]),
        // jq's syntax for filters, evaluated on the tree (`--where`): a native subset, libjq for the rest.
        .target(name: "Expressions", dependencies: ["JSONTree", "LinearRegex", "CJQ"]),
        .target(name: "StoreInterface", dependencies: ["JSONTree", "LiveQuery"]),
        .target(name: "FileStore", dependencies: ["StoreInterface", "JSONTree", "LiveQuery", "EngineMemory"]),
        // A command run every interval as a store: beside FileStore on StoreInterface, not inside it, since
        // it spawns and ends processes, which no file store does, and needs none of FileStore's reading.
        .target(name: "CommandStore", dependencies: ["StoreInterface", "JSONTree", "LiveQuery", "EngineMemory"]),
        // A log folded by a key (`--key`): a store over any other store's log, so every log (a file,
        // a pipe, a command's stream) is folded the same way; the key is a jq expression.
        .target(name: "KeyedStore", dependencies: ["StoreInterface", "JSONTree", "LiveQuery", "Expressions"]),
        // A journal (`--record`): each revision's changes as a JSON line, and a journal replayed as a store.
        .target(name: "Journal", dependencies: ["StoreInterface", "JSONTree", "LiveQuery"]),
        // Rates (`--rate`): a store over any other adding each child's per-second rate of a numeric column.
        .target(name: "RateStore", dependencies: ["StoreInterface", "JSONTree", "LiveQuery"]),
        .target(name: "SyncedArray", dependencies: ["LiveQuery", "StoreInterface", "JSONTree"]),
        // The Security Rules language: a rules file parsed, and evaluated per request.
        .target(name: "Rules", dependencies: ["JSONTree", "LinearRegex"]),
        // The Realtime Database REST and streaming protocol over a file store (`synctable serve`).
        .target(
            name: "Serve",
            dependencies: [
                "JSONTree", "LiveQuery", "StoreInterface", "FileStore", "Rules",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        // A Realtime Database location over the network: its URL, REST reads and writes, and
        // its event stream with reconnection.
        .target(
            name: "RemoteStore",
            dependencies: [
                "JSONTree", "LiveQuery", "StoreInterface",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // No `pkgConfig:` — Debian's ncursesw.pc adds -D_XOPEN_SOURCE=600, which SwiftPM
        // rejects with a warning; the headers and library are on the default paths.
        .systemLibrary(name: "CNcursesw", providers: [.apt(["libncurses-dev"])]),
        .target(name: "TableUI", dependencies: ["CNcursesw", "Sequences"]),
        // Histograms, scatters and time series drawn on a TableUI Canvas (braille or blocks),
        // updated in place, and written as SVG.
        .target(name: "Charts", dependencies: ["TableUI"]),
        // Views derived from a location's revisions (frequency, statistics), each emitting batches.
        .target(name: "LiveViews", dependencies: ["JSONTree", "LiveQuery", "EngineMemory", "Sequences"]),
        // The viewer as a library: driven by injected keys, an injected clock and any Canvas.
        .target(name: "ViewerCore", dependencies: ["JSONTree", "LiveQuery", "StoreInterface", "SyncedArray", "TableUI", "Charts", "LiveViews",
                                                  "Expressions", "RateStore"]),
        // What the commands do without the viewer: open a source, read a log's records, print
        // tables and event lines, write the demo; `Commands` is argument parsing over it.
        .target(
            name: "Headless",
            dependencies: ["JSONTree", "LiveQuery", "StoreInterface", "FileStore", "RemoteStore", "TableUI", "Charts", "SyncedArray",
                           "ViewerCore", "CommandStore", "KeyedStore", "Expressions", "Journal", "RateStore"]
        ),
        // The commands: argument parsing over Headless and the viewer, each runnable in-process
        // (`SyncTable.run(arguments, io:)`: its output captured, its exit status returned).
        .target(
            name: "Commands",
            dependencies: [
                "JSONTree", "LiveQuery", "FileStore", "SyncedArray", "TableUI", "ViewerCore", "Serve", "RemoteStore",
                "Expressions", "Headless", "Charts", "CommandStore", "KeyedStore", "Journal", "RateStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The demo's leaderboard, built into the binary so that `synctable demo` works anywhere.
            resources: [.embedInCode("Demo/leaderboard.json")]
        ),
        // The program's edge: the process-wide settings and the quitting signals, then a command.
        .executableTarget(
            name: "synctable",
            dependencies: ["Commands", "Headless", "JSONTree", "CommandStore", "TableUI"]
        ),
        // A small program showing the table widget alone; the widget's terminal test drives it.
        .executableTarget(name: "tabledemo", dependencies: ["TableUI", "SeededRandom"]),
        // `make bench`: one report of SyncTable's speed against its peers.
        .executableTarget(
            name: "synctable-bench",
            dependencies: ["JSONTree", "LiveQuery", "FileStore", "SyncedArray", "TableUI", "ViewerCore", "LiveViews", "KeyedStore",
                           "Expressions", "Journal", "CommandStore", "StoreInterface", "SeededRandom", "EngineMemory"]
        ),
        // A seeded random generator shared by the property tests.
        .target(name: "TestSupport", dependencies: ["SeededRandom", "EngineMemory"], path: "Tests/TestSupport"),
        .testTarget(name: "EngineMemoryTests", dependencies: ["EngineMemory", "TestSupport"]),
        .testTarget(name: "JSONTreeTests", dependencies: ["JSONTree", "EngineMemory", "CJSONScan", "TestSupport"]),
        .testTarget(name: "LiveQueryTests", dependencies: ["LiveQuery", "JSONTree", "EngineMemory", "TestSupport", "Expressions", "Sequences"]),
        .testTarget(name: "ExpressionsTests", dependencies: ["Expressions", "JSONTree", "TestSupport"]),
        .testTarget(name: "StoreInterfaceTests", dependencies: ["StoreInterface", "LiveQuery", "JSONTree", "TestSupport"]),
        .testTarget(name: "FileStoreTests", dependencies: ["FileStore", "LiveQuery", "JSONTree", "EngineMemory", "TestSupport"]),
        .testTarget(name: "CommandStoreTests", dependencies: ["CommandStore", "FileStore", "StoreInterface", "LiveQuery", "JSONTree", "TestSupport"]),
        .testTarget(name: "KeyedStoreTests", dependencies: ["KeyedStore", "FileStore", "StoreInterface", "Expressions", "JSONTree", "TestSupport"]),
        .testTarget(name: "JournalTests", dependencies: ["Journal", "StoreInterface", "SyncedArray", "JSONTree", "LiveQuery", "TestSupport"]),
        .testTarget(name: "RateStoreTests", dependencies: ["RateStore", "StoreInterface", "JSONTree", "TestSupport"]),
        .testTarget(name: "SyncedArrayTests", dependencies: ["SyncedArray", "FileStore", "LiveQuery", "JSONTree", "TestSupport"]),
        .testTarget(name: "TableUITests", dependencies: ["TableUI", "TestSupport", "Sequences"]),
        .testTarget(name: "ChartsTests", dependencies: ["Charts", "TableUI", "TestSupport"]),
        .testTarget(name: "LiveViewsTests", dependencies: ["LiveViews", "LiveQuery", "JSONTree", "TestSupport"]),
        .testTarget(
            name: "ViewerCoreTests",
            dependencies: ["ViewerCore", "TableUI", "SyncedArray", "FileStore", "LiveQuery", "JSONTree", "TestSupport",
                           "RemoteStore", "Expressions", "RateStore"]
        ),
        .testTarget(name: "RulesTests", dependencies: ["Rules", "JSONTree", "TestSupport"]),
        .testTarget(name: "LinearRegexTests", dependencies: ["LinearRegex"]),
        .testTarget(name: "SynctableTests", dependencies: ["JSONTree", "TestSupport"]),
        // A command run in this process as `synctable ARGUMENTS` would run it, its output captured.
        .target(name: "CommandTestSupport", dependencies: ["Commands", "Headless", "TestSupport"], path: "Tests/CommandTestSupport"),
        // The commands run in-process: what needs no process of its own (signals, terminals).
        .testTarget(name: "CommandsTests", dependencies: [
            "Commands", "CommandTestSupport", "Headless", "ServeTestSupport", "JSONTree", "LiveQuery", "TestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // A served file in this process (`DatabaseServer` on a thread of its own) for the tests of
        // the server and of its clients.
        .target(name: "ServeTestSupport", dependencies: ["Serve", "StoreInterface"], path: "Tests/ServeTestSupport"),
        // Its Python scripts drive the Firebase Admin SDK (scripts/ensure-firebase-admin.sh installs it).
        .testTarget(
            name: "ServeTests",
            dependencies: [
                "Serve", "StoreInterface", "FileStore", "LiveQuery", "JSONTree", "TestSupport", "Commands", "CommandTestSupport", "ServeTestSupport",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Python", "Node"]
        ),
        // Its Python proxy stalls and cuts connections between a client and a server.
        .testTarget(
            name: "RemoteStoreTests", dependencies: ["RemoteStore", "FileStore", "LiveQuery", "JSONTree", "TestSupport", "Serve", "ServeTestSupport"],
            exclude: ["Python"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `make test` sets SYNCTABLE_OPTIMIZED=1 and builds the release configuration: our own modules
// and tests are then compiled optimized as they ship, with assertions, `#if DEBUG` checks and
// testability kept (in a release build as `make test`'s, or a debug one), in about half the time.
// The dependencies build as their configuration has them (release under `make test`, without
// their debug-only checks), and a package that depends on this one sees no unsafe flag.
if let value = getenv("SYNCTABLE_OPTIMIZED"), String(cString: value) == "1" {
    for target in package.targets where target.type != .system {
        if ["CJSONScan", "CEngineMemory"].contains(target.name) {
            target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-O2"])]
        } else if target.name == "CRE2" {
            target.cxxSettings = (target.cxxSettings ?? []) + [.unsafeFlags(["-O2"])]
        } else {
            target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-O", "-assert-config", "Debug", "-DDEBUG", "-enable-testing"])]
        }
    }
}
