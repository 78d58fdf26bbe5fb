/// The size of the buffers archives stream through, read and written:
/// 1 MiB, large enough for throughput, small enough for a flat memory.
enum StreamBuffer {
    static let size = 1 << 20
}

/// Where an archive's bytes come from, block after block.
protocol ArchiveSource: AnyObject {
    /// The next block (valid until the next call); empty at the end.
    func nextBlock() throws -> UnsafeRawBufferPointer
    /// Called with the bytes read so far, after each block.
    var progress: ((Int64) -> Void)? { get set }
    /// True when ``seek(to:whence:)`` works (a regular file).
    var isSeekable: Bool { get }
    /// Moves to `offset` (`SEEK_SET`, `SEEK_CUR`, `SEEK_END`); returns the
    /// new position, or nil when the source can not seek.
    func seek(to offset: Int64, whence: Int32) -> Int64?
}

extension ArchiveSource {
    var isSeekable: Bool { false }
    func seek(to offset: Int64, whence: Int32) -> Int64? { nil }
}

/// Where an archive's bytes go, block by block: a file (``BackgroundWriter``)
/// or an object store upload (``MultipartUploadStream``).
protocol ArchiveSink: AnyObject {
    /// Takes `count` bytes (copied); false once the output has failed.
    func write(_ bytes: UnsafeRawPointer, count: Int) -> Bool
    /// Ends the stream: everything taken is written, or this throws why not.
    func finish() throws
    /// The first failure, if any.
    var error: DBToolError? { get }
}

extension BackgroundWriter: ArchiveSink {}
