/// What the replica holds, page by page, as of its last TXID: the LTX
/// checksum of every page (`.dbtool-replicate-state` beside the database),
/// so that a restart after the write-ahead log was checkpointed away ships
/// only the pages that differ, never the whole database again.
///
/// Kept by the uploads: once a level-0 file is in the replica, its pages'
/// checksums are written here, then the TXID, then the file is synced. A
/// state behind the replica (a kill between an upload and its record) is
/// brought to the replica's TXID from the replica's own files; one ahead of
/// it, or of another replica or database, is not used.
///
/// ```
/// header (64 bytes): "DBTOOLRS", version 1, page size, commit (pages),
///   TXID, node ID (the database's identity), the replica's hash
/// body: 8 bytes per page from page 1: its checksum (0: unknown)
/// ```
///
/// Confined to the shipping lane. Memory: one header and a chunk of the body.
final class ReplicaState {
    /// The state file's name in the database's directory.
    static let fileName = ".dbtool-replicate-state"
    static let headerSize: Int64 = 64
    private static let magic = Array("DBTOOLRS".utf8)

    private let file: FileDescriptor
    /// The page size of the checksums (0 before the first file).
    private(set) var pageSize: UInt32
    /// The database's size in pages at ``txid``.
    private(set) var commit: UInt32
    /// The TXID the checksums describe (0: nothing yet).
    private(set) var txid: UInt64
    let nodeID: UInt64
    let replicaHash: UInt64

    private init(file: FileDescriptor, pageSize: UInt32, commit: UInt32, txid: UInt64, nodeID: UInt64, replicaHash: UInt64) {
        self.file = file
        self.pageSize = pageSize
        self.commit = commit
        self.txid = txid
        self.nodeID = nodeID
        self.replicaHash = replicaHash
    }

    deinit { file.close() }

    /// A hash of the replica's description, so that a state of another replica is not used.
    static func hash(of replica: String) -> UInt64 {
        var crc = CRC64()
        crc.update(Array(replica.utf8))
        return crc.value
    }

    /// Opens the state of `database`'s directory for `replica`, creating an
    /// empty one when there is none or it describes another replica or
    /// database (or can not be read as one).
    static func open(in directory: DirectoryDescriptor, nodeID: UInt64, replica: String) throws -> ReplicaState {
        let replicaHash = hash(of: replica)
        if let file = try? directory.openFile(fileName, .readWrite) {
            if let header = try? file.read(fromAbsoluteOffset: 0, count: Int(headerSize)), header.count == Int(headerSize),
                Array(header[0..<8]) == magic
            {
                let fields = header.withUnsafeBytes { bytes in
                    (
                        version: bytes.bigEndian(at: 8) as UInt32, pageSize: bytes.bigEndian(at: 12) as UInt32,
                        commit: bytes.bigEndian(at: 16) as UInt32, txid: bytes.bigEndian(at: 24) as UInt64,
                        node: bytes.bigEndian(at: 32) as UInt64, replica: bytes.bigEndian(at: 40) as UInt64
                    )
                }
                if fields.version == 1 && fields.node == nodeID && fields.replica == replicaHash {
                    return ReplicaState(
                        file: file, pageSize: fields.pageSize, commit: fields.commit, txid: fields.txid, nodeID: nodeID, replicaHash: replicaHash)
                }
            }
            file.close()
            _ = try? directory.removeFile(fileName)
        }
        try directory.createFile(fileName).close()
        let opened = try directory.openFile(fileName, .readWrite)
        let state = ReplicaState(file: opened, pageSize: 0, commit: 0, txid: 0, nodeID: nodeID, replicaHash: replicaHash)
        try state.writeHeader()
        return state
    }

    /// Forgets everything: the next restart knows nothing of the replica.
    func reset() throws {
        txid = 0
        commit = 0
        try writeHeader()
        try file.resize(to: Self.headerSize)
        try file.sync()
    }

    /// Records the pages of the LTX file read from `source` (in the replica
    /// now): a snapshot replaces every checksum; any other file changes its
    /// pages' and the size.
    func apply(_ source: @escaping LTXDecoder.Source) throws {
        var decoder = try LTXDecoder(from: source)
        let header = decoder.header
        if header.isSnapshot || pageSize != header.pageSize {
            // A whole database: what was recorded before says nothing of it.
            try file.resize(to: Self.headerSize)
            pageSize = header.pageSize
        }
        var page = [UInt8](repeating: 0, count: Int(header.pageSize))
        var batch = PageChecksumWriter(file: file)
        while let number = try page.withUnsafeMutableBytes({ try decoder.nextPage(into: $0) }) {
            try batch.set(number, decoder.pageChecksum.rawValue)
        }
        try batch.flush()
        // Pages past a smaller database are gone.
        if header.commit < commit || header.isSnapshot {
            try file.resize(to: Self.headerSize + Int64(header.commit) * 8)
        }
        commit = header.commit
        txid = header.maxTXID
        try writeHeader()
        try file.sync()
    }

    /// Records the checksums of a whole database of `commit` pages at
    /// `txid`, page by page from `checksum` (the lock page's is 0).
    func record(pageSize: UInt32, commit: UInt32, txid: UInt64, checksum: (UInt32) throws -> UInt64) throws {
        try file.resize(to: Self.headerSize)
        self.pageSize = pageSize
        var batch = PageChecksumWriter(file: file)
        let lockPage = LTXHeader.lockPage(pageSize: pageSize)
        for number in UInt32(1)...max(commit, 1) where number <= commit {
            try batch.set(number, number == lockPage ? 0 : try checksum(number))
        }
        try batch.flush()
        self.commit = commit
        self.txid = txid
        try writeHeader()
        try file.sync()
    }

    /// The recorded checksums of pages `first...`, `count` of them, in a
    /// buffer reused by the caller (0 for a page past the commit).
    func checksums(from first: UInt32, count: Int, into buffer: inout [UInt64]) throws {
        buffer.removeAll(keepingCapacity: true)
        let bytes = try file.read(fromAbsoluteOffset: Self.headerSize + Int64(first - 1) * 8, count: count * 8)
        bytes.withUnsafeBytes { raw in
            for index in 0..<(raw.count / 8) { buffer.append(raw.bigEndian(at: index * 8)) }
        }
        while buffer.count < count { buffer.append(0) }
    }

    private func writeHeader() throws {
        var header = Self.magic
        header.appendBigEndian(UInt32(1))
        header.appendBigEndian(pageSize)
        header.appendBigEndian(commit)
        header.appendBigEndian(UInt32(0))
        header.appendBigEndian(txid)
        header.appendBigEndian(nodeID)
        header.appendBigEndian(replicaHash)
        header += [UInt8](repeating: 0, count: Int(Self.headerSize) - header.count)
        try file.writeAll(toAbsoluteOffset: 0, header)
    }
}

/// Writes page checksums into the state's body, runs of consecutive pages
/// in one write.
private struct PageChecksumWriter {
    let file: FileDescriptor
    private var first: UInt32 = 0
    private var bytes: [UInt8] = []

    init(file: FileDescriptor) {
        self.file = file
        bytes.reserveCapacity(64 * 1024)
    }

    mutating func set(_ page: UInt32, _ checksum: UInt64) throws {
        if bytes.isEmpty || page != first + UInt32(bytes.count / 8) || bytes.count >= 64 * 1024 {
            try flush()
            first = page
        }
        bytes.appendBigEndian(checksum)
    }

    mutating func flush() throws {
        guard !bytes.isEmpty else { return }
        try file.writeAll(toAbsoluteOffset: ReplicaState.headerSize + Int64(first - 1) * 8, bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}
