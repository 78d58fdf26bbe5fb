// swift-tools-version:6.1
import PackageDescription

// DatabaseKit, DBToolCore and dbtool import FoundationEssentials; Foundation
// proper, whose formatters, NSString bridge and CharacterSet link ICU's 30 MB
// of data into a binary, only behind DatabaseKit's FoundationBridging trait.
// Member visibility follows each file's own imports, so that a Foundation
// extension seen through another module (String(format:),
// replacingOccurrences) is a compile error, not a silent link.
let foundationEssentialsOnly: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "DatabaseKit",
    products: [
        .library(name: "DatabaseKit", targets: ["DatabaseKit"]),
        // DatabaseKit under GRDB's module name: code written for GRDB keeps
        // `import GRDB` and its `GRDB.Database` spellings.
        .library(name: "GRDB", targets: ["GRDB"]),
        .executable(name: "dbtool", targets: ["dbtool"]),
        // dbtool's operations, for the fuzz targets of Fuzz/.
        .library(name: "DBToolCore", targets: ["DBToolCore"]),
    ],
    traits: [
        .trait(
            name: "FoundationBridging",
            description: """
                Foundation's reference types as database values (NSNumber, NSString, NSData, NSDate, NSURL, NSUUID, \
                NSNull, CGFloat), DateFormatter coding strategies, localized collations and functions, NSError \
                bridging of DatabaseError: GRDB's API, which links Foundation's ICU data (30 MB). On by default; \
                dbtool's release build turns it off.
                """),
        .default(enabledTraits: ["FoundationBridging"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Tests only: property-based checks of value round-trips.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // The system SQLite. The product-prefixed name never clashes with another
        // package's `CSQLite` or `SQLite3` module.
        .systemLibrary(
            name: "DatabaseKitSQLite",
            path: "Sources/DatabaseKitSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "DatabaseKit",
            dependencies: ["DatabaseKitSQLite"],
            swiftSettings: foundationEssentialsOnly),
        .target(
            name: "GRDB",
            dependencies: ["DatabaseKit"]),
        // The system libarchive; only DBToolCore's ArchiveReader and ArchiveWriter
        // (Backup/) call it.
        .systemLibrary(
            name: "DBToolLibArchive",
            path: "Sources/DBToolLibArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]),
        // The system libcurl (HTTP, TLS); only DBToolCore's Storage/Curl folder
        // calls it (AWS Signature V4 is DBToolCore's own, in Storage/S3).
        .systemLibrary(
            name: "DBToolCurl",
            path: "Sources/DBToolCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // The system liblz4 (LZ4 blocks of LTX page frames); only DBToolCore's
        // Replication/LZ4 folder calls it.
        .systemLibrary(
            name: "DBToolLZ4",
            path: "Sources/DBToolLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]),
        // libyaml, for Litestream's configuration files: only the
        // Configuration/YAML folder calls it.
        .systemLibrary(
            name: "DBToolYAML",
            path: "Sources/DBToolYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),
        // What dbtool does, as a library: operations and their reports. No
        // ArgumentParser here, and no SQLite C calls (only DatabaseKit).
        .target(
            name: "DBToolCore",
            dependencies: [
                "DatabaseKit",
                "DBToolLibArchive",
                "DBToolCurl",
                "DBToolLZ4",
                "DBToolYAML",
                // SHA-256 checksums of migration files.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: foundationEssentialsOnly),
        .executableTarget(
            name: "dbtool",
            dependencies: [
                "DatabaseKit",
                "DBToolCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: foundationEssentialsOnly),
        // `make completions`: dbtool's man page, man/dbtool.1, from its tool description.
        .executableTarget(
            name: "generate-man-page",
            dependencies: ["DBToolCore"],
            path: "Tools/GenerateManPage"),
        // `make demo-library`: the library at work on ./demo/library.
        .executableTarget(
            name: "DatabaseKitDemo",
            dependencies: ["DatabaseKit"]),
        // What every test target and the workload process share: temporary
        // directories, the S3 and credential servers, BusyClock (and, through
        // DatabaseKit's package access, `Locked`).
        .target(name: "TestSupport", dependencies: ["DatabaseKit"], path: "Tests/TestSupport"),
        .testTarget(
            name: "DatabaseKitTests",
            dependencies: [
                "DatabaseKit", "DatabaseKitSQLite", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        // `import GRDB` code: the GRDB module re-exports DatabaseKit.
        .testTarget(name: "GRDBModuleTests", dependencies: ["GRDB"]),
        .testTarget(
            name: "DBToolCoreTests",
            dependencies: ["DBToolCore", "DatabaseKit", "TestSupport"]),
        // Helper processes the end-to-end tests start (a writer load, a lock holder).
        .executableTarget(name: "TestWorkload", dependencies: ["DatabaseKit", "TestSupport"], path: "Tests/TestWorkload"),
        // End to end: runs the built dbtool binary (the dependency builds it first).
        .testTarget(
            name: "DBToolTests",
            dependencies: [
                "dbtool", "generate-man-page", "TestWorkload", "DBToolCore", "DatabaseKit", "DBToolLibArchive", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// `make test-tsan` and `make test-asan` build only the targets their suites live
// in: a sanitized build of dbtool, its end-to-end tests and ArgumentParser adds
// minutes on two cores for tests those runs never start. `library` keeps
// DatabaseKit and its tests; `core` adds DBToolCore and its tests. Unset (every
// other build), the package is whole.
// The dependencies stay declared even where no kept target uses them (SwiftPM
// says so in a warning): dropping them would rewrite the pinned Package.resolved.
let sanitizedScopes: [String: Set<String>] = [
    "library": ["DatabaseKitSQLite", "DatabaseKit", "TestSupport", "DatabaseKitTests"],
    "core": [
        "DatabaseKitSQLite", "DatabaseKit", "TestSupport", "DatabaseKitTests",
        "DBToolLibArchive", "DBToolCurl", "DBToolLZ4", "DBToolYAML", "DBToolCore", "DBToolCoreTests",
    ],
]
if let scope = Context.environment["DATABASEKIT_SANITIZED_SCOPE"], let kept = sanitizedScopes[scope] {
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        switch product {
        case let library as Product.Library: return !library.targets.allSatisfy(kept.contains)
        case let executable as Product.Executable: return !executable.targets.allSatisfy(kept.contains)
        default: return true
        }
    }
}
