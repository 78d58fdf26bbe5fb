/// Builds a database file from LTX files: a snapshot, then files whose
/// transactions follow on without a gap. Each page is written at its place
/// (in runs, by a ``PageRunWriter``), the file is cut to the size the last
/// file's header gives, and the database checksum is carried from file to
/// file when the files track it, so that a file applied out of its chain is
/// refused before it is written.
///
/// Pages land in `database` as they are read; a file that throws halfway has
/// left some of its pages there. The caller builds into a staging file and
/// keeps it only when every file applied.
struct LTXApplier {
    /// The file being built.
    let database: FileDescriptor
    /// The last transaction applied; 0 before the snapshot.
    private(set) var txid: UInt64 = 0
    /// The page size of the files applied.
    private(set) var pageSize: UInt32 = 0
    /// The database's size in pages after the last file.
    private(set) var commit: UInt32 = 0
    /// The database checksum after the last file, when the files track one.
    private(set) var checksum = LTXChecksum.zero

    /// An applier building `database`, an empty file open for reading and
    /// writing (reading for ``computedChecksum()``).
    init(database: FileDescriptor) {
        self.database = database
    }

    /// An applier that goes on with `database`, built up to `txid` with
    /// pages of `pageSize` (a follower's copy, between two rounds).
    init(database: FileDescriptor, resumingAt txid: UInt64, pageSize: UInt32) {
        self.database = database
        self.txid = txid
        self.pageSize = pageSize
    }

    /// Applies one file, read from `source`. The first must be a snapshot;
    /// each next one starts at the transaction after the last applied, or,
    /// for a compacted file, before it, and ends after it.
    mutating func apply(from source: @escaping LTXDecoder.Source, name: String) throws {
        var decoder = try LTXDecoder(from: source)
        let header = decoder.header
        if txid == 0 {
            guard header.isSnapshot else { throw LTXError.malformed("\(name) is not a snapshot, and nothing was restored before it") }
            pageSize = header.pageSize
        } else {
            // A compacted file may start before the next transaction: its pages
            // are those of its last one, so applying it again is harmless.
            guard header.minTXID <= txid + 1, header.maxTXID > txid else {
                throw LTXError.malformed("\(name) covers transactions \(header.minTXID)-\(header.maxTXID), not from \(txid + 1): the chain has a gap")
            }
            guard header.minTXID == txid + 1 || !header.tracksChecksum else {
                throw LTXError.malformed("\(name) starts at transaction \(header.minTXID), not at \(txid + 1), and tracks a checksum")
            }
            guard header.pageSize == pageSize else { throw LTXError.malformed("\(name) has page size \(header.pageSize), not \(pageSize)") }
            if header.tracksChecksum, checksum != .zero, header.preApplyChecksum != checksum {
                throw LTXError.malformed("\(name) follows a database of checksum \(header.preApplyChecksum), not \(checksum)")
            }
        }
        var page = [UInt8](repeating: 0, count: Int(pageSize))
        let writer = PageRunWriter(descriptor: database, pageSize: Int(pageSize))
        while let number = try page.withUnsafeMutableBytes({ try decoder.nextPage(into: $0) }) {
            try page.withUnsafeBytes { try writer.add($0, number: number) }
        }
        try writer.finish()
        try database.resize(to: Int64(header.commit) * Int64(pageSize))
        txid = header.maxTXID
        commit = header.commit
        checksum = decoder.postApplyChecksum
    }

    /// The database checksum of the file as built, read back page by page:
    /// it must equal ``checksum`` when the files track one.
    func computedChecksum() throws -> LTXChecksum {
        var result = LTXChecksum.zero
        var page = [UInt8](repeating: 0, count: Int(pageSize))
        let lockPage = LTXHeader.lockPage(pageSize: pageSize)
        for number in UInt32(1)...max(commit, 1) where number <= commit && number != lockPage {
            try page.withUnsafeMutableBytes { buffer in
                let count = try database.read(fromAbsoluteOffset: Int64(number - 1) * Int64(pageSize), into: buffer)
                guard count == buffer.count else { throw LTXError.truncated }
            }
            result = page.withUnsafeBytes { result.toggling(.page(number, $0)) }
        }
        return result
    }
}
