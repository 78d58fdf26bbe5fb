import DatabaseKit
import Foundation

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

let arguments = CommandLine.arguments.dropFirst()
do {
    switch (arguments.first, arguments.count) {
    case ("transfer", 3): try transfer(path: arguments[2], until: arguments[3])
    case ("hold-write-lock", 3): try holdWriteLock(path: arguments[2], signals: arguments[3])
    default:
        FileHandle.standardError.write(Data("usage: TestWorkload transfer DATABASE STOPFILE | hold-write-lock DATABASE SIGNALS\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("TestWorkload: \(error)\n".utf8))
    exit(1)
}
