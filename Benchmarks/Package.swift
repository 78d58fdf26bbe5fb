// swift-tools-version:6.1
import PackageDescription

// A package of its own, so that the main build never pulls GRDB or SwiftNIO. Release builds
// only: `make bench`, `make bench-instructions` (see the root Makefile).
let package = Package(
    name: "Benchmarks",
    dependencies: [
        // Through the `DatabaseKit` link to the repository: a path dependency is
        // known by its folder's name, and the alias below must name it the same
        // in every clone, whatever the clone's folder is called.
        .package(path: "DatabaseKit"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The server-side peer; it pulls swift-nio and builds its own SQLite.
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
    ],
    targets: [
        // The raw SQLite C API, for the baseline.
        .systemLibrary(name: "BenchSQLite", path: "Sources/BenchSQLite", pkgConfig: "sqlite3"),
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                "BenchSQLite",
                .product(name: "DatabaseKit", package: "DatabaseKit"),
                // The main package has a GRDB module of its own (DatabaseKit under GRDB's
                // name): aliased, so that `GRDB` here is the real one.
                .product(name: "GRDB", package: "DatabaseKit", moduleAliases: ["GRDB": "DatabaseKitGRDB"]),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
