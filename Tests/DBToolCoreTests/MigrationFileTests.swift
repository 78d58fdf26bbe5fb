import DBToolCore
import Foundation
import Testing

@Suite("Migration files")
struct MigrationFileTests {
    @Test("up and down sections, line numbers, checksum of the up section")
    func sections() throws {
        let file = try MigrationFile(
            path: "/m/0001_create_user.sql",
            contents: """
                -- Users of the application.
                -- migrate:up
                CREATE TABLE user (id INTEGER PRIMARY KEY);
                CREATE INDEX user_id ON user(id);

                -- migrate:down
                DROP TABLE user;
                """)
        #expect(file.version == 1)
        #expect(file.versionText == "0001")
        #expect(file.name == "create_user")
        #expect(file.up == "CREATE TABLE user (id INTEGER PRIMARY KEY);\nCREATE INDEX user_id ON user(id);\n")
        #expect(file.down == "DROP TABLE user;")
        #expect(file.upFirstLine == 3)
        #expect(file.downFirstLine == 7)
        #expect(!file.runsOutsideTransaction)
        #expect(file.checksum.count == 64)
        #expect(file.checksum == sha256Hex(file.up))
    }

    @Test("a file without markers is all up")
    func noMarkers() throws {
        let file = try MigrationFile(path: "/m/20261122130500_add_column.sql", contents: "ALTER TABLE t ADD COLUMN c;\n")
        #expect(file.version == 20_261_122_130_500)
        #expect(file.up == "ALTER TABLE t ADD COLUMN c;\n")
        #expect(file.down == nil)
        #expect(file.upFirstLine == 1)
    }

    @Test("the no-transaction directive on the first line")
    func noTransaction() throws {
        let file = try MigrationFile(path: "/m/0003_vacuum.sql", contents: "-- dbtool:no-transaction\n-- migrate:up\nVACUUM;\n")
        #expect(file.runsOutsideTransaction)
        #expect(file.up == "VACUUM;\n")
        let later = try MigrationFile(path: "/m/0004_x.sql", contents: "-- migrate:up\n-- dbtool:no-transaction\nSELECT 1;\n")
        #expect(!later.runsOutsideTransaction)
    }

    @Test("CRLF and CR line endings give the same checksum as LF")
    func lineEndings() throws {
        let lf = try MigrationFile(path: "/m/0001_a.sql", contents: "-- migrate:up\nCREATE TABLE a(x);\nCREATE TABLE b(y);\n")
        let crlf = try MigrationFile(path: "/m/0001_a.sql", contents: "-- migrate:up\r\nCREATE TABLE a(x);\r\nCREATE TABLE b(y);\r\n")
        let cr = try MigrationFile(path: "/m/0001_a.sql", contents: "-- migrate:up\rCREATE TABLE a(x);\rCREATE TABLE b(y);\r")
        #expect(lf.checksum == crlf.checksum)
        #expect(lf.checksum == cr.checksum)
        let edited = try MigrationFile(path: "/m/0001_a.sql", contents: "-- migrate:up\nCREATE TABLE a(x, z);\nCREATE TABLE b(y);\n")
        #expect(edited.checksum != lf.checksum)
        // The down section is not part of the checksum.
        let withDown = try MigrationFile(
            path: "/m/0001_a.sql", contents: "-- migrate:up\nCREATE TABLE a(x);\nCREATE TABLE b(y);\n-- migrate:down\nDROP TABLE a;")
        #expect(withDown.checksum == sha256Hex("CREATE TABLE a(x);\nCREATE TABLE b(y);"))
    }

    @Test(
        "malformed files are errors naming the file (and the line)",
        arguments: [
            ("/m/create_user.sql", "SELECT 1;", "is not VERSION_name.sql"),
            ("/m/0001.sql", "SELECT 1;", "is not VERSION_name.sql"),
            ("/m/0001_x.txt.sql.bak", "SELECT 1;", "is not VERSION_name.sql"),
            ("/m/0001_x.sql", "CREATE TABLE t(a);\n-- migrate:up\nSELECT 1;", "/m/0001_x.sql:1: SQL before"),
            ("/m/0001_x.sql", "-- migrate:down\nSELECT 1;", "expected one `-- migrate:up`"),
            ("/m/0001_x.sql", "-- migrate:up\nSELECT 1;\n-- migrate:up\nSELECT 2;", "expected one `-- migrate:up`"),
        ])
    func malformed(path: String, contents: String, message: String) throws {
        let error = #expect(throws: DBToolError.self) { try MigrationFile(path: path, contents: contents) }
        #expect(error?.status == .dataError)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }
}

@Suite("Migration directories")
struct MigrationDirectoryTests {
    private func makeDirectory(_ files: [String: Data]) throws -> String {
        let path = NSTemporaryDirectory() + "migrations-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: URL(fileURLWithPath: path + "/" + name)) }
        return path
    }

    @Test("loads in numeric version order and ignores README-like files")
    func order() throws {
        let path = try makeDirectory([
            "10_ten.sql": Data("SELECT 10;".utf8),
            "9_nine.sql": Data("SELECT 9;".utf8),
            "0100_hundred.sql": Data("SELECT 100;".utf8),
            "README.md": Data("docs".utf8),
            "notes.txt": Data("notes".utf8),
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let directory = try MigrationDirectory(path: path)
        #expect(directory.migrations.map(\.version) == [9, 10, 100])
    }

    @Test("the repository's migrations-examples load")
    func examples() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("migrations-examples").path
        let directory = try MigrationDirectory(path: path)
        #expect(directory.migrations.map(\.version) == [1, 2, 3, 4, 5])
        #expect(directory.migrations.allSatisfy { $0.down != nil })
    }

    @Test("two files with the same version: 65, naming both")
    func duplicates() throws {
        let path = try makeDirectory(["0001_a.sql": Data("SELECT 1;".utf8), "1_b.sql": Data("SELECT 2;".utf8)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(error?.status == .dataError)
        #expect(error?.message.contains("0001_a.sql") == true)
        #expect(error?.message.contains("1_b.sql") == true)
    }

    @Test("a file that is not UTF-8: 65, naming it")
    func notUTF8() throws {
        let path = try makeDirectory(["0001_a.sql": Data([0x53, 0xFF, 0xFE, 0x00, 0xC3])])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(error?.status == .dataError)
        #expect(error?.message.contains("0001_a.sql is not UTF-8") == true)
    }

    @Test("a file that does not match the pattern: 65, naming it")
    func unexpectedFile() throws {
        let path = try makeDirectory(["0001_a.sql": Data("SELECT 1;".utf8), "setup.sql": Data("SELECT 2;".utf8)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: DBToolError.self) { try MigrationDirectory(path: path) }
        #expect(error?.message.contains("setup.sql: the name is not VERSION_name.sql") == true)
    }

    @Test("a missing directory: 66; an empty one loads no migration")
    func missingAndEmpty() throws {
        let error = #expect(throws: DBToolError.self) { try MigrationDirectory(path: "/nonexistent/migrations") }
        #expect(error?.status == .noInput)
        let path = try makeDirectory([:])
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try MigrationDirectory(path: path).migrations.isEmpty)
    }
}

/// SHA-256 by the system's sha256sum, to check the checksum independently.
func sha256Hex(_ text: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try! process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try! input.fileHandleForWriting.close()
    let result = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return String(result.prefix(64))
}
