import DatabaseKit
import Foundation
import TestSupport

// Helper processes for the end-to-end tests, which start them with Process.
// Not exit tests: Swift Testing keeps a concurrency thread blocked while an
// exit test runs, and these wait for the test itself: on a 2-core machine,
// two of them starve the test that would stop them.
//
//   TestWorkload transfer DATABASE STOPFILE
//       moves money between accounts, one transaction at a time, with a
//       ledger row each, until STOPFILE exists.
//   TestWorkload hold-write-lock DATABASE SIGNALS
//       takes the write lock, creates SIGNALS/held, and releases the lock
//       once SIGNALS/release exists.
//   TestWorkload app-writer DATABASE SIGNALS
//       an application: one connection kept open, a row inserted into
//       `event` every 10 ms; creates SIGNALS/started after its first
//       commit; once SIGNALS/stop exists, writes the sequence number of its
//       last commit to SIGNALS/last, and the longest time one commit waited
//       for another connection's lock (in ms, from SQLite's first busy
//       answer to the commit's end) to SIGNALS/maxstall, and exits (1 on
//       any error). Only lock waits count: a slow fsync on a loaded machine
//       is not a stall another tool caused.
//   TestWorkload ack-writer DATABASE SIGNALS
//       an application that records what it was told is committed: a row
//       inserted into `event` every 10 ms, and after each commit returns,
//       "SEQ UNIXTIME" appended to SIGNALS/acks; until SIGNALS/stop exists
//       or it is killed.
//   TestWorkload hold-read DATABASE SIGNALS
//       opens a read transaction (a snapshot of the WAL), creates
//       SIGNALS/held, and ends it once SIGNALS/release exists.
//   TestWorkload hold-open DATABASE SIGNALS
//       opens a connection, reads once, creates SIGNALS/held, and keeps the
//       connection open (and idle) until SIGNALS/release exists.
//   TestWorkload crash-mid-transaction DATABASE
//       switches DATABASE to a rollback journal, fills a table, then dies
//       (SIGKILL) inside a transaction that has spilled pages to the file:
//       the journal it leaves is hot.
//   TestWorkload exec-unblocked PROGRAM ARGUMENTS...
//       runs PROGRAM with every signal unblocked and at its default: a test
//       runner may spawn its children with SIGTERM and SIGHUP blocked, and a
//       long-lived server started so (tmux) would outlive every attempt to
//       stop it.

/// Moves money between the accounts, up to 500 transactions a second.
func transfer(path: String, until stop: String) throws {
    var config = Configuration()
    config.busyMode = .timeout(30)
    let pool = try DatabasePool(path: path, configuration: config)
    while !FileManager.default.fileExists(atPath: stop) {
        try pool.write { db in
            let amount = Int.random(in: 1...20)
            try db.execute(sql: "UPDATE account SET balance = balance - ? WHERE id = ?", arguments: [amount, Int.random(in: 1...10)])
            try db.execute(sql: "UPDATE account SET balance = balance + ? WHERE id = ?", arguments: [amount, Int.random(in: 1...10)])
            try db.execute(sql: "INSERT INTO ledger(amount, payload) VALUES (?, randomblob(200))", arguments: [amount])
        }
        usleep(2_000)
    }
    try pool.close()
}

/// Holds the write lock of `path` until `signals/release` appears.
func holdWriteLock(path: String, signals: String) throws {
    var config = Configuration()
    config.allowsUnsafeTransactions = true  // the lock is held across accesses, on purpose
    let dbQueue = try DatabaseQueue(path: path, configuration: config)
    try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
    _ = FileManager.default.createFile(atPath: signals + "/held", contents: nil)
    while !FileManager.default.fileExists(atPath: signals + "/release") { usleep(10_000) }
    try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
    try dbQueue.close()
}

/// Switches the database to a rollback journal and holds its exclusive lock
/// mid-transaction (its journal written), until `SIGNALS/release`: readers
/// wait too, as they do for any writer of a rollback-journal database.
func holdExclusiveLock(path: String, signals: String) throws {
    var config = Configuration()
    config.allowsUnsafeTransactions = true  // the lock is held across accesses, on purpose
    let dbQueue = try DatabaseQueue(path: path, configuration: config)
    try dbQueue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = DELETE; CREATE TABLE IF NOT EXISTS lock_probe(x)")
        try db.execute(sql: "BEGIN EXCLUSIVE; INSERT INTO lock_probe VALUES (1)")
    }
    _ = FileManager.default.createFile(atPath: signals + "/held", contents: nil)
    while !FileManager.default.fileExists(atPath: signals + "/release") { usleep(10_000) }
    try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
    try dbQueue.close()
}

/// Inserts a row every 10 ms through one open connection, as an application does.
func appWriter(path: String, signals: String) throws {
    let firstBusy = BusyClock()
    var config = Configuration()
    config.busyMode = firstBusy.busyMode(timeout: 5)  // the common busy_timeout=5000
    let dbQueue = try DatabaseQueue(path: path, configuration: config)
    try dbQueue.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS event(seq INTEGER PRIMARY KEY, at REAL)") }
    var last = 0
    var maxStall: TimeInterval = 0
    while !FileManager.default.fileExists(atPath: signals + "/stop") {
        last += 1
        let seq = last
        firstBusy.reset()
        // Unique across restores: a restore may bring back rows of an older state.
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO event(seq, at) VALUES (?, julianday('now'))", arguments: [1_000_000 + seq])
        }
        maxStall = max(maxStall, firstBusy.elapsed())
        if seq == 1 { _ = FileManager.default.createFile(atPath: signals + "/started", contents: nil) }
        usleep(10_000)
    }
    try dbQueue.close()
    _ = FileManager.default.createFile(atPath: signals + "/maxstall", contents: Data("\(Int((maxStall * 1000).rounded()))".utf8))
    _ = FileManager.default.createFile(atPath: signals + "/last", contents: Data("\(1_000_000 + last)".utf8))
}

/// Commits a row every 10 ms and logs each acknowledged commit with its time.
func ackWriter(path: String, signals: String) throws {
    var config = Configuration()
    config.busyMode = .timeout(5)
    let dbQueue = try DatabaseQueue(path: path, configuration: config)
    try dbQueue.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS event(seq INTEGER PRIMARY KEY, at REAL)") }
    let acks = open(signals + "/acks", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard acks >= 0 else { throw POSIXError(.EIO) }
    var seq = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM event") } ?? 0
    while !FileManager.default.fileExists(atPath: signals + "/stop") {
        seq += 1
        let value = seq
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO event(seq, at) VALUES (?, julianday('now'))", arguments: [value]) }
        let line = Array("\(seq) \(Date().timeIntervalSince1970)\n".utf8)
        _ = line.withUnsafeBytes { write(acks, $0.baseAddress, $0.count) }
        usleep(10_000)
    }
    close(acks)
    try dbQueue.close()
}

/// Keeps a read transaction open until `signals/release` appears: a reader
/// of an old snapshot, which a restart or truncate checkpoint must wait for.
func holdRead(path: String, signals: String) throws {
    var config = Configuration()
    config.allowsUnsafeTransactions = true  // the transaction spans accesses, on purpose
    let dbQueue = try DatabaseQueue(path: path, configuration: config)
    try dbQueue.writeWithoutTransaction { db in
        try db.execute(sql: "BEGIN DEFERRED")
        _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master")
    }
    _ = FileManager.default.createFile(atPath: signals + "/held", contents: nil)
    while !FileManager.default.fileExists(atPath: signals + "/release") { usleep(10_000) }
    try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
    try dbQueue.close()
}

/// Keeps an idle connection open until `signals/release` appears.
func holdOpen(path: String, signals: String) throws {
    let dbQueue = try DatabaseQueue(path: path)
    _ = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
    _ = FileManager.default.createFile(atPath: signals + "/held", contents: nil)
    while !FileManager.default.fileExists(atPath: signals + "/release") { usleep(10_000) }
    try dbQueue.close()
}

/// Replaces this process with `arguments`, every signal unblocked and at its default.
func execUnblocked(_ arguments: [String]) -> Never {
    var none = sigset_t()
    sigemptyset(&none)
    sigprocmask(SIG_SETMASK, &none, nil)
    for number in 1..<32 where number != SIGKILL && number != SIGSTOP { signal(Int32(number), SIG_DFL) }
    let pointers = arguments.map { strdup($0) } + [nil]
    execvp(arguments[0], pointers)
    FileHandle.standardError.write(Data("TestWorkload: can not run \(arguments[0])\n".utf8))
    exit(127)
}

/// Dies inside a write transaction whose changes reached the database file.
func crashMidTransaction(path: String) throws {
    let dbQueue = try DatabaseQueue(path: path)
    try dbQueue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = DELETE")
        try db.execute(
            sql: """
                CREATE TABLE filler (x);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO filler SELECT randomblob(100) FROM n;
                """)
        // A small cache spills the transaction's pages to the file.
        try db.execute(sql: "PRAGMA cache_size = 10")
        try db.execute(sql: "BEGIN")
        try db.execute(sql: "UPDATE filler SET x = randomblob(100)")
        kill(getpid(), SIGKILL)
    }
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "exec-unblocked" && arguments.count > 1 { execUnblocked(Array(arguments.dropFirst())) }
do {
    switch (arguments.first, arguments.count) {
    case ("transfer", 3): try transfer(path: arguments[2], until: arguments[3])
    case ("hold-write-lock", 3): try holdWriteLock(path: arguments[2], signals: arguments[3])
    case ("hold-exclusive-lock", 3): try holdExclusiveLock(path: arguments[2], signals: arguments[3])
    case ("app-writer", 3): try appWriter(path: arguments[2], signals: arguments[3])
    case ("hold-open", 3): try holdOpen(path: arguments[2], signals: arguments[3])
    case ("hold-read", 3): try holdRead(path: arguments[2], signals: arguments[3])
    case ("ack-writer", 3): try ackWriter(path: arguments[2], signals: arguments[3])
    case ("crash-mid-transaction", 2): try crashMidTransaction(path: arguments[2])
    default:
        FileHandle.standardError.write(
            Data(
                "usage: TestWorkload transfer DATABASE STOPFILE | hold-write-lock|hold-exclusive-lock|app-writer|ack-writer|hold-open|hold-read DATABASE SIGNALS\n"
                    .utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("TestWorkload: \(error)\n".utf8))
    exit(1)
}
