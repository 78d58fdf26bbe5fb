import Foundation
import TestSupport
import Testing

@testable import DBToolCore

/// A restore lists what it needs, not a day of level-0 files: plans made
/// from the partial listings reach the same TXID as plans made from every
/// file, and the stores list exactly the first TXIDs asked for.
@Suite("Replication: partial listings of long histories", .serialized)
struct ReplicaListingTests {
    /// A history as replicate and compaction write it: level-0 files of one
    /// to three transactions a second; every 30 files a level-1 file that
    /// merges the level-0 files since the last one, every 10 of those a
    /// level-2 file, every 12 of those a level-3 file; a snapshot of the
    /// whole database at random level-0 boundaries. Only names and times:
    /// plans do not read the files.
    static func writeHistory(into path: String, seconds: Int, seed: UInt64) throws -> (files: Int, start: Date) {
        var random = SplitMix(seed: seed)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        var written = 0
        func write(_ level: Int, _ first: UInt64, _ last: UInt64, _ second: Int) throws {
            let directory = path + "/ltx/\(level)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let file = directory + "/" + LTXFileName(level: level, minTXID: first, maxTXID: last).fileName
            #expect(FileManager.default.createFile(atPath: file, contents: Data([0])))
            try FileSystem.setTimes(file, date: start.addingTimeInterval(Double(second)))
            written += 1
        }
        var txid: UInt64 = 0
        var levelStart: [Int: UInt64] = [1: 1, 2: 1, 3: 1]
        var counts: [Int: Int] = [0: 0, 1: 0, 2: 0]
        let every = [1: 30, 2: 10, 3: 12]
        for second in 0..<seconds {
            let first = txid + 1
            txid += 1 + random.next() % 3
            try write(0, first, txid, second)
            if second > 0 && random.next() % 500 == 0 { try write(LTXFileName.snapshotLevel, 1, txid, second) }
            if second == 0 { try write(LTXFileName.snapshotLevel, 1, txid, second) }
            // Compactions: each level merges whole files of the level below.
            counts[0, default: 0] += 1
            for level in 1...3 where counts[level - 1, default: 0] == every[level]! {
                try write(level, levelStart[level]!, txid, second)
                levelStart[level] = txid + 1
                counts[level - 1] = 0
                counts[level, default: 0] += 1
            }
        }
        return (written, start)
    }

    /// The files a plan applies chain without a gap from a whole database.
    func isChain(_ plan: RestorePlan) -> Bool {
        guard let first = plan.files.first, first.name.level == LTXFileName.snapshotLevel || first.name.minTXID == 1 else { return false }
        var reach = first.name.maxTXID
        for file in plan.files.dropFirst() {
            guard file.name.minTXID <= reach + 1, file.name.maxTXID > reach else { return false }
            reach = file.name.maxTXID
        }
        return true
    }

    @Test("a time target excludes the file of that very millisecond and includes the one before, as Litestream's -timestamp does")
    func timeTargetAtFileTimes() throws {
        // Level-0 files every 100 ms after a snapshot, their times whole milliseconds as LTX headers give them.
        let start: Int64 = 1_795_951_972_059
        let time = { (milliseconds: Int64) in Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        // Written to a directory replica, and listed back: the plan reads the files' times as the store keeps them.
        let directory = TemporaryDirectory()
        let store = try Replica.at(directory.path, objectStore: ObjectStoreOptions())
        let body = directory.file("body")
        try Data([1]).write(to: URL(fileURLWithPath: body))
        try store.write(LTXFileName(level: 9, minTXID: 1, maxTXID: 1), from: body, timestamp: time(start))
        for txid in UInt64(2)...200 {
            try store.write(LTXFileName(level: 0, minTXID: txid, maxTXID: txid), from: body, timestamp: time(start + Int64(txid) * 100))
        }
        let files = try store.allFiles()
        #expect(files.count == 200)
        for txid in UInt64(2)...200 {
            let at = start + Int64(txid) * 100
            // The target as an operator types it, read back as `--at` reads it.
            let exactly = try #require(ISOTime.parse(ISOTime.text(time(at))))
            let before = try #require(try RestorePlan(files, target: .time(exactly)))
            #expect(before.txid == txid - 1, "\(ISOTime.text(exactly))")
            let after = try #require(ISOTime.parse(ISOTime.text(time(at + 1))))
            let including = try #require(try RestorePlan(files, target: .time(after)))
            #expect(including.txid == txid)
        }
    }

    @Test("plans from partial listings reach the TXID of plans from every file, for the latest state, TXIDs and times")
    func partialPlans() throws {
        for seed: UInt64 in [1, 2, 3] {
            let directory = TemporaryDirectory()
            let (count, start) = try Self.writeHistory(into: directory.path, seconds: 3_437, seed: seed)
            let store = try Replica.at(directory.path, objectStore: ObjectStoreOptions())
            let all = try store.allFiles()
            #expect(all.count == count)
            let last = all.map(\.name.maxTXID).max()!
            var random = SplitMix(seed: seed)
            var targets: [RestorePlan.Target] = [.latest]
            for _ in 0..<15 { targets.append(.txid(1 + random.next() % last)) }
            for _ in 0..<15 { targets.append(.time(start.addingTimeInterval(Double(random.next() % 3_437) + 0.5))) }
            for target in targets {
                let full = try #require(try RestorePlan(all, target: target))
                let (loaded, listed) = try RestorePlan.load(from: store, target: target)
                let plan = try #require(loaded, "\(target)")
                #expect(plan.txid == full.txid, "seed \(seed), \(target): \(plan.txid) vs \(full.txid)")
                #expect(isChain(plan), "seed \(seed), \(target): \(plan.files.map(\.name))")
                if case .time = target { continue }
                // Snapshots, levels 2 and 3 whole, and the ends of levels 1 and 0: not the 3,437 level-0 files.
                #expect(listed < 200, "seed \(seed), \(target): \(listed) files listed of \(count): \(plan.files.map(\.name.path))")
                #expect(plan.files.count <= full.files.count + 30, "\(plan.files.count) files vs \(full.files.count)")
            }
            // The last TXID, and what follows a TXID, from the same partial listings.
            #expect(try store.lastTXID() == last)
            let boundaries = all.filter { $0.name.level == 0 }.map(\.name.maxTXID).dropLast()
            for _ in 0..<10 {
                let txid = boundaries.randomElement()!
                let chain = try RestorePlan.chain(after: txid, in: store.files(after: txid))
                #expect(chain.last?.name.maxTXID == last, "after \(txid)")
            }
        }
    }

    /// The chain as defined: at each step, of the files that start at or
    /// before the next TXID and end after the current one, the one reaching
    /// furthest (the lower level on a tie).
    func referenceChain(after txid: UInt64, in available: [ReplicaFile], where include: (ReplicaFile) -> Bool) -> [ReplicaFile] {
        var files: [ReplicaFile] = []
        var current = txid
        while true {
            let next = available.filter {
                $0.name.level != LTXFileName.snapshotLevel && $0.name.minTXID <= current + 1 && $0.name.maxTXID > current && include($0)
            }.max { ($0.name.maxTXID, -$0.name.level) < ($1.name.maxTXID, -$1.name.level) }
            guard let next else { return files }
            files.append(next)
            current = next.name.maxTXID
        }
    }

    @Test("the chain is the one its definition gives, for files that overlap, straddle, leave gaps or are filtered out")
    func chainMatchesDefinition() throws {
        var random = SplitMix(seed: 42)
        for _ in 0..<300 {
            var files: [ReplicaFile] = []
            for _ in 0..<Int(random.next() % 60) {
                let first = 1 + random.next() % 200
                let name = LTXFileName(level: Int(random.next() % 4), minTXID: first, maxTXID: first + random.next() % 30)
                files.append(ReplicaFile(name: name, size: 1, createdAt: Date(timeIntervalSince1970: Double(random.next() % 1000))))
            }
            let start = random.next() % 50
            let cutoff = Date(timeIntervalSince1970: Double(random.next() % 1000))
            let include = { (file: ReplicaFile) in file.createdAt < cutoff }
            let expected = referenceChain(after: start, in: files, where: include)
            let chain = RestorePlan.chain(after: start, in: files.shuffled(), where: include)
            #expect(chain.map(\.name.maxTXID) == expected.map(\.name.maxTXID) && chain.map(\.name.level) == expected.map(\.name.level))
        }
        // A day of level-0 files, one a second, chains in one sweep.
        let day = (1...86_400).map {
            ReplicaFile(name: LTXFileName(level: 0, minTXID: UInt64($0), maxTXID: UInt64($0)), size: 1, createdAt: Date())
        }
        #expect(try RestorePlan.chain(after: 0, in: day).count == 86_400)
    }

    @Test("object storage lists the first TXIDs asked for, across pages, and stops at the end of the range")
    func objectListing() throws {
        let server = try ObjectStorageServer()
        // 1,200 level-0 keys (two pages of a listing), TXIDs 1 to 1,200, and one at level 1.
        _ = try server.python(
            """
            for i in range(1, 1201):
                s3.put_object(Bucket='backups', Key='rep/0000/%016x-%016x.ltx' % (i, i), Body=b'x')
            s3.put_object(Bucket='backups', Key='rep/0001/%016x-%016x.ltx' % (1, 30), Body=b'x')
            s3.put_object(Bucket='backups', Key='rep/0000/not-an-ltx-file', Body=b'x')
            print('ok')
            """)
        let store = try Replica.at("s3://backups/rep/", objectStore: ObjectStoreOptions(environment: server.environment))
        #expect(try store.files(level: 0).map(\.name.minTXID) == Array(1...1200))
        #expect(try store.files(level: 0, firstTXIDs: 1150...UInt64.max).map(\.name.minTXID) == Array(1150...1200))
        #expect(try store.files(level: 0, firstTXIDs: 998...1003).map(\.name.minTXID) == Array(998...1003))
        #expect(try store.files(level: 0, firstTXIDs: 0...2).map(\.name.minTXID) == [1, 2])
        #expect(try store.files(level: 0, firstTXIDs: 1201...UInt64.max).isEmpty)
        #expect(try store.files(level: 1, firstTXIDs: 2...UInt64.max).isEmpty)
        #expect(try store.lastTXID() == 1200)
    }
}

/// A small seeded generator, so that a failing history can be written again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
