// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets over dbtool's input parsers, built with
// -sanitize=fuzzer,address: `make fuzz` (see the root Makefile). A package of
// its own, so that the main build never carries fuzzing instrumentation.
let package = Package(
    name: "Fuzz",
    dependencies: [
        .package(name: "DatabaseKit", path: "..")
    ],
    targets: [
        // libFuzzer's driver, declared for Swift.
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "FuzzMigrationFile",
            dependencies: ["FuzzDriver", .product(name: "DBToolCore", package: "DatabaseKit")]),
        .executableTarget(
            name: "FuzzExecArguments",
            dependencies: [
                "FuzzDriver", .product(name: "DBToolCore", package: "DatabaseKit"), .product(name: "DatabaseKit", package: "DatabaseKit"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
