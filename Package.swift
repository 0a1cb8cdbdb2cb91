// swift-tools-version:6.0
import PackageDescription

// Layers, each depending only on those above it:
// CJSONScan → JSONTree → LiveQuery → FileStore → SyncedArray; CNcursesw → TableUI;
// ViewerCore (SyncedArray + TableUI); synctable uses all.
//
// Linux only: the store watches files with inotify and the code uses Glibc.
let package = Package(
    name: "SyncTable",
    products: [
        .library(name: "JSONTree", targets: ["JSONTree"]),
        .library(name: "LiveQuery", targets: ["LiveQuery"]),
        .library(name: "FileStore", targets: ["FileStore"]),
        .library(name: "SyncedArray", targets: ["SyncedArray"]),
        .library(name: "TableUI", targets: ["TableUI"]),
        .library(name: "ViewerCore", targets: ["ViewerCore"]),
        .executable(name: "synctable", targets: ["synctable"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // SIMD byte scanning for the parser (C: Swift has no portable movemask or shuffle).
        .target(name: "CJSONScan"),
        .target(name: "JSONTree", dependencies: ["CJSONScan"], linkerSettings: [.linkedLibrary("m")]),
        .target(name: "LiveQuery", dependencies: ["JSONTree"]),
        .target(name: "FileStore", dependencies: ["JSONTree", "LiveQuery"]),
        .target(name: "SyncedArray", dependencies: ["LiveQuery", "FileStore", "JSONTree"]),
        // No `pkgConfig:` — Debian's ncursesw.pc adds -D_XOPEN_SOURCE=600, which SwiftPM
        // rejects with a warning; the headers and library are on the default paths.
        .systemLibrary(name: "CNcursesw", providers: [.apt(["libncurses-dev"])]),
        .target(name: "TableUI", dependencies: ["CNcursesw"]),
        // The viewer as a library: driven by injected keys, an injected clock and any Canvas.
        .target(name: "ViewerCore", dependencies: ["JSONTree", "LiveQuery", "FileStore", "SyncedArray", "TableUI"]),
        .executableTarget(
            name: "synctable",
            dependencies: [
                "JSONTree", "LiveQuery", "FileStore", "SyncedArray", "TableUI", "ViewerCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The demo's leaderboard, built into the binary so that `synctable demo` works anywhere.
            resources: [.embedInCode("Demo/leaderboard.json")]
        ),
        // A small program showing the table widget alone; the widget's terminal test drives it.
        .executableTarget(name: "tabledemo", dependencies: ["TableUI"]),
        // `make bench`: one report of SyncTable's speed against its peers.
        .executableTarget(
            name: "synctable-bench",
            dependencies: ["JSONTree", "LiveQuery", "FileStore", "SyncedArray", "TableUI", "ViewerCore"]
        ),
        // A seeded random generator shared by the property tests.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "JSONTreeTests", dependencies: ["JSONTree", "CJSONScan", "TestSupport"]),
        .testTarget(name: "LiveQueryTests", dependencies: ["LiveQuery", "JSONTree", "TestSupport"]),
        .testTarget(name: "FileStoreTests", dependencies: ["FileStore", "LiveQuery", "JSONTree", "TestSupport"]),
        .testTarget(name: "SyncedArrayTests", dependencies: ["SyncedArray", "FileStore", "LiveQuery", "JSONTree", "TestSupport"]),
        .testTarget(name: "TableUITests", dependencies: ["TableUI", "TestSupport"]),
        .testTarget(
            name: "ViewerCoreTests",
            dependencies: ["ViewerCore", "TableUI", "SyncedArray", "FileStore", "LiveQuery", "JSONTree", "TestSupport"]
        ),
        .testTarget(name: "SynctableTests", dependencies: ["JSONTree", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
