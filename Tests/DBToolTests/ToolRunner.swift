import DatabaseKit
import Foundation
import Testing
import TestSupport

/// The result of one run of the dbtool binary.
struct ToolResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the built dbtool binary (beside the test bundle) with `arguments`.
/// With `executable`, runs that instead (a wrapper such as `setpriv` or `sh`
/// whose arguments start dbtool).
func dbtool(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], executable: String? = nil) throws
    -> ToolResult
{
    var env = testEnvironment
    env.merge(environment) { _, new in new }
    return try run(executable ?? toolURL.path, arguments, environment: env, stdin: stdin)
}

/// The environment dbtool runs in: the test runner's, without a default
/// database, and without the EC2 instance metadata service (on a CI machine
/// that runs on EC2 it would answer, and hand dbtool that machine's role).
let testEnvironment: [String: String] = {
    var environment = ProcessInfo.processInfo.environment
    environment.removeValue(forKey: "DBTOOL_DATABASE")
    environment["AWS_EC2_METADATA_DISABLED"] = "true"
    return environment
}()

/// The dbtool under test: the one built beside the tests, or
/// `$DBTOOL_TEST_BINARY` (to run the suite against another build, such as
/// the previous release, and see which tests its defects fail).
let toolURL = ProcessInfo.processInfo.environment["DBTOOL_TEST_BINARY"].map { URL(fileURLWithPath: $0) } ?? builtExecutable("dbtool")

/// The helper processes of the tests (Tests/TestWorkload).
let workloadURL = builtExecutable("TestWorkload")

/// An executable of the package: the test bundle and the executables are built in the same directory.
func builtExecutable(_ name: String) -> URL {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    fatalError("\(name) not found near \(executable.path): run `swift build` first")
}

/// Starts a helper process of Tests/TestWorkload; its output goes to stderr.
func startWorkload(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = workloadURL
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    return process
}

/// An application process writing a row every 10 ms through one open
/// connection, stopped and checked by ``stop()``.
final class Application {
    let signals: String
    let process: Process

    init(database: String, scratch: TemporaryDirectory) throws {
        signals = scratch.file("app-signals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: signals, withIntermediateDirectories: false)
        process = try startWorkload(["app-writer", database, signals])
        let deadline = Date(timeIntervalSinceNow: 30)
        while !FileManager.default.fileExists(atPath: signals + "/started") && process.isRunning && Date() < deadline {
            usleep(10_000)
        }
        try #require(FileManager.default.fileExists(atPath: signals + "/started"), "the application never committed")
    }

    deinit {
        // A test that failed before stop(): the application must not outlive it.
        if process.isRunning {
            _ = FileManager.default.createFile(atPath: signals + "/stop", contents: nil)
            let deadline = Date(timeIntervalSinceNow: 5)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// Stops the application; returns the sequence number of its last commit.
    func stop() throws -> Int {
        _ = FileManager.default.createFile(atPath: signals + "/stop", contents: nil)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the application failed")
        let text = try String(contentsOfFile: signals + "/last", encoding: .utf8)
        return try #require(Int(text))
    }

    /// The longest time one of its commits waited for another connection's
    /// lock, in ms (after ``stop()``): the stall another process caused,
    /// without the commit's own fsync, which a loaded machine can make slow.
    func longestCommitMs() throws -> Int {
        try #require(Int(try String(contentsOfFile: signals + "/maxstall", encoding: .utf8)))
    }
}

extension TemporaryDirectory {
    /// An initialized database directory with a table of accounts.
    func makeDatabase(_ name: String = "db") throws -> String {
        let directory = file(name)
        #expect(try dbtool(["init", directory, "--quiet"]).status == 0)
        let dbQueue = try DatabaseQueue(path: directory + "/db.sqlite")
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE account(id INTEGER PRIMARY KEY, balance INT NOT NULL)")
            for id in 1...10 { try db.execute(sql: "INSERT INTO account VALUES (?, 100)", arguments: [id]) }
        }
        try dbQueue.close()
        return directory
    }
}

extension TemporaryDirectory {
    /// A database directory of about 16 MiB of random hex text: seconds to
    /// compress at level 19, long enough to be interrupted.
    func makeLargeDatabase() throws -> String {
        let database = try makeDatabase()
        try DatabaseQueue(path: database + "/db.sqlite").write { db in
            try db.execute(
                sql: """
                    CREATE TABLE bulk(x BLOB);
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 4000)
                    INSERT INTO bulk SELECT hex(randomblob(1800)) FROM c;
                    """)
        }
        return database
    }
}

/// The total balance and the number of accounts of a database directory made by `makeDatabase`.
func accountTotals(_ directory: String) throws -> (total: Int, accounts: Int) {
    let dbQueue = try DatabaseQueue(path: directory + "/db.sqlite")
    defer { try? dbQueue.close() }
    return try dbQueue.read { db in
        (try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account") ?? 0, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM account") ?? 0)
    }
}

/// dbtool's temp files, staging directories and lock files in `directory`.
func dbtoolTempFiles(_ directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(".dbtool-") }
}


/// The bytes of every file in a directory, to prove that nothing changed.
func directoryFingerprint(_ path: String) -> [String: Data] {
    var result: [String: Data] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
        result[name] = FileManager.default.contents(atPath: path + "/" + name) ?? Data()
    }
    return result
}

/// A dbtool run in the background: its stdin is `stdin` (a FIFO's path, to
/// feed an archive piece by piece), its output goes to files; the test
/// signals it or waits for it.
final class BackgroundTool {
    let process = Process()
    private let scratch: TemporaryDirectory
    private let name = UUID().uuidString

    init(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], scratch: TemporaryDirectory) throws {
        self.scratch = scratch
        process.executableURL = toolURL
        process.arguments = arguments
        var env = testEnvironment
        env.merge(environment) { _, new in new }
        process.environment = env
        _ = FileManager.default.createFile(atPath: scratch.file(name + ".out"), contents: nil)
        _ = FileManager.default.createFile(atPath: scratch.file(name + ".err"), contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: scratch.file(name + ".out"))
        process.standardError = FileHandle(forWritingAtPath: scratch.file(name + ".err"))
        // Opened by the child, so that opening a FIFO never blocks the test.
        if let stdin {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$0\" \"$@\" < \"$DBTOOL_TEST_STDIN\"", toolURL.path] + arguments
            process.environment?["DBTOOL_TEST_STDIN"] = stdin
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
    }

    /// Sends `signal` to the run.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// What the run wrote on stderr so far.
    var stderrSoFar: String { (try? String(contentsOfFile: scratch.file(name + ".err"), encoding: .utf8)) ?? "" }

    /// Waits for the run to end (killing it past `timeout` seconds) and
    /// returns its status and output.
    func wait(timeout: TimeInterval = 120) -> ToolResult {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("dbtool \(process.arguments ?? []) did not end within \(timeout) s: killed")
        }
        process.waitUntilExit()
        let read = { (suffix: String) in (try? String(contentsOfFile: self.scratch.file(self.name + suffix), encoding: .utf8)) ?? "" }
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return ToolResult(status: status, stdout: read(".out"), stderr: read(".err"))
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// True once the replica directory holds a finished level-0 LTX file (a
/// final name, written by rename): a restore of it then has a state to
/// restore, where the directory alone may still be empty.
func replicaHoldsState(_ replica: String) -> Bool {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: replica + "/ltx/0")) ?? []
    return names.contains { $0.hasSuffix(".ltx") && !$0.hasPrefix(".") }
}

/// Waits up to `timeout` seconds for `condition`, looking every `interval`
/// seconds; false when it never held.
@discardableResult
func waitUntil(timeout: TimeInterval = 30, interval: TimeInterval = 0.01, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        if Date() > deadline { return false }
        usleep(useconds_t(interval * 1e6))
    }
    return true
}

/// Runs a command (dbtool, a system tool) with `stdin` as its input, and
/// returns its status and output.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: String? = nil) throws -> ToolResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe()
    let errors = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    // Read both pipes concurrently: a full pipe would block the tool.
    let stderrData = Locked(Data())
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { stderrData.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() } }
    let stdoutData = output.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ToolResult(
        status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
        stderr: String(decoding: stderrData.current, as: UTF8.self))
}

/// The permission bits of a file or directory (not following a link).
func permissions(_ path: String) -> mode_t {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
}

/// Mounts a tmpfs of `kilobytes` at `path` (a full disk); false where
/// mounting is not permitted.
func mountTmpfs(_ path: String, kilobytes: Int) -> Bool {
    (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path]))?.status == 0
}

/// Unmounts what ``mountTmpfs(_:kilobytes:)`` mounted.
func unmount(_ path: String) {
    _ = try? run("/bin/umount", [path])
}

/// This host's part of dbtool's temp names: host, boot and PID namespace.
func temporaryOwner() -> (host: String, boot: String, namespace: String) {
    var name = [CChar](repeating: 0, count: 256)
    gethostname(&name, 255)
    let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        .map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? String($0) : "_" }.joined()
    let boot = ((try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? "").filter(\.isHexDigit).prefix(8)
    let namespace = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")) ?? "").filter(\.isNumber)
    return (host, String(boot).lowercased(), namespace)
}

/// `host.boot.namespace`, the start of a temp name's owner tag (the pid follows).
func temporaryOwnerTag() -> String {
    let owner = temporaryOwner()
    return "\(owner.host).\(owner.boot).\(owner.namespace)"
}
