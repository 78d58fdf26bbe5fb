import Crypto
internal import DBToolLibArchive
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Writes an archive with libarchive, one entry at a time, streaming file
/// contents through a fixed buffer: memory stays flat whatever the size.
///
/// It owns its `struct archive *`, checks every result, and frees it on every
/// path; ``finish()`` reports the error of `archive_write_close` (the last
/// blocks are written then).
final class ArchiveWriter {
    private let archive: OpaquePointer
    private let destination: String
    private let output: SinkBox
    private var isFinished = false

    /// Starts an archive on an open file descriptor (not closed by the writer).
    ///
    /// - parameters:
    ///   - fileDescriptor: Where the archive's bytes go, written on a thread
    ///     of their own (``BackgroundWriter``).
    ///   - format: The archive format and its compression.
    ///   - level: The compression level, or nil for the format's default.
    ///   - threads: Compression worker threads for zstd and xz (0: compress
    ///     on the calling thread; the other formats ignore it). Workers are
    ///     faster but take buffers of several MiB each.
    ///   - destination: The archive's path, for error messages.
    convenience init(fileDescriptor: FileDescriptor, format: ArchiveFormat, level: Int?, threads: Int = 0, destination: String) throws {
        try self.init(
            sink: BackgroundWriter(descriptor: fileDescriptor), format: format, level: level, threads: threads, destination: destination)
    }

    /// Starts an archive whose blocks go to `sink` (a file, an upload).
    ///
    /// - parameters:
    ///   - sink: Where the archive's blocks go.
    ///   - format: The archive format and its compression.
    ///   - level: The compression level, or nil for the format's default.
    ///   - threads: Compression worker threads for zstd and xz (see the
    ///     initializer on a file descriptor).
    ///   - passphrase: With the zip format: encrypt every entry with
    ///     AES-256 (WinZip AE-2), keyed from this passphrase.
    ///   - destination: The archive's path or URL, for error messages.
    init(
        sink: any ArchiveSink, format: ArchiveFormat, level: Int?, threads: Int = 0, passphrase: String? = nil, destination: String
    ) throws {
        guard let archive = archive_write_new() else {
            throw DBToolError(.software, "libarchive could not allocate an archive writer")
        }
        self.archive = archive
        self.destination = destination
        output = SinkBox(sink)
        // From here on, an error thrown leaves deinit to free the archive.
        try check(format == .zip ? archive_write_set_format_zip(archive) : archive_write_set_format_pax_restricted(archive))
        switch format {
        case .tarZstd: try check(archive_write_add_filter_zstd(archive))
        case .tarGzip: try check(archive_write_add_filter_gzip(archive))
        case .tarXz: try check(archive_write_add_filter_xz(archive))
        case .tar, .zip: break
        }
        if let level {
            if format == .zip {
                try check(archive_write_set_format_option(archive, "zip", "compression-level", String(level)))
            } else if format != .tar {
                try check(archive_write_set_filter_option(archive, nil, "compression-level", String(level)))
            }
        }
        if let passphrase {
            guard format == .zip else { throw DBToolError(.usage, "only zip archives can be encrypted") }
            try check(archive_write_set_format_option(archive, "zip", "encryption", "aes256"))
            try check(archive_write_set_passphrase(archive, passphrase))
        }
        if threads > 0 && (format == .tarZstd || format == .tarXz) {
            try check(archive_write_set_filter_option(archive, nil, "threads", String(threads)))
        }
        // Hand the filters 1 MiB at a time rather than 10 KiB tar blocks: libarchive's
        // zstd filter runs three times faster so, and memory stays flat.
        try check(archive_write_set_bytes_per_block(archive, Int32(Self.bufferSize)))
        try check(archive_write_set_bytes_in_last_block(archive, 1))  // no padding after the end
        // libarchive hands each block to `output`, which writes it on its own thread.
        try check(
            archive_write_open2(
                archive, Unmanaged.passUnretained(output).toOpaque(), nil,
                { _, client, buffer, length in
                    guard let client, let buffer else { return -1 }
                    let output = Unmanaged<SinkBox>.fromOpaque(client).takeUnretainedValue()
                    return output.sink.write(buffer, count: length) ? length : -1
                }, nil, nil))
    }

    deinit {
        archive_write_free(archive)
    }

    /// Adds a regular file under `name`, keeping its permissions and
    /// modification time; `observe` sees every chunk written (for progress).
    ///
    /// - returns: The number of bytes archived and their SHA-256.
    @discardableResult
    func addFile(
        atPath path: String, as name: String, observe: (UnsafeRawBufferPointer) throws -> Void = { _ in }
    ) throws -> (size: Int64, sha256: SHA256.Digest) {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { descriptor.close() }
        let info = try descriptor.status()
        return try addFile(descriptor: descriptor, info: info, length: info.size, path: path, as: name, observe: observe)
    }

    /// Adds the first `length` bytes of an open file, with the permissions
    /// and modification time of `info`. The file is read and hashed ahead
    /// on two other threads (``HashingReader``) while this one compresses.
    ///
    /// - returns: The number of bytes archived and their SHA-256.
    @discardableResult
    func addFile(
        descriptor: FileDescriptor, info: FileStatus, length: Int64, path: String, as name: String,
        observe: (UnsafeRawBufferPointer) throws -> Void = { _ in }
    ) throws -> (size: Int64, sha256: SHA256.Digest) {
        try writeHeader(
            name: name, size: length, mode: info.modeBits, seconds: Int(info.modificationTime.tv_sec),
            nanoseconds: Int(info.modificationTime.tv_nsec))
        let reader = HashingReader(descriptor: descriptor, length: length)
        var written: Int64 = 0
        while let chunk = try reader.next() {
            try writeData(chunk.baseAddress!, count: chunk.count)
            try observe(chunk)
            written += Int64(chunk.count)
        }
        guard written == length, let digest = reader.sha256 else {
            throw DBToolError(.ioError, "can not read \(path): it got shorter while being archived")
        }
        return (written, digest)
    }

    /// Adds a directory entry, with its permissions and modification time.
    func addDirectory(as name: String, mode: mode_t, modified: timespec) throws {
        try writeHeader(
            name: name.hasSuffix("/") ? name : name + "/", size: 0, mode: mode, seconds: Int(modified.tv_sec),
            nanoseconds: Int(modified.tv_nsec), type: 0o040000)  // AE_IFDIR
    }

    /// Adds bytes under `name` (a manifest, for example).
    func addData(_ data: Data, as name: String, mode: mode_t = 0o600, modified: Date = Date()) throws {
        let seconds = modified.timeIntervalSince1970
        try writeHeader(
            name: name, size: Int64(data.count), mode: mode, seconds: Int(seconds),
            nanoseconds: Int((seconds - seconds.rounded(.down)) * 1e9))
        try data.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress, bytes.count > 0 { try writeData(base, count: bytes.count) }
        }
    }

    /// Writes the last blocks. Must be called for a complete archive.
    func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        try check(archive_write_close(archive))
        try output.sink.finish()
    }

    /// 1 MiB: large enough for throughput, small enough for a flat memory.
    static let bufferSize = StreamBuffer.size

    private func writeHeader(name: String, size: Int64, mode: mode_t, seconds: Int, nanoseconds: Int, type: mode_t = 0o100000) throws {
        guard let entry = archive_entry_new() else {
            throw DBToolError(.software, "libarchive could not allocate an entry")
        }
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname(entry, name)
        archive_entry_set_size(entry, size)
        archive_entry_set_filetype(entry, UInt32(type))  // AE_IFREG by default: the macros are not imported
        archive_entry_set_perm(entry, mode)
        archive_entry_set_mtime(entry, seconds, nanoseconds)
        try check(archive_write_header(archive, entry))
    }

    private func writeData(_ bytes: UnsafeRawPointer, count: Int) throws {
        var offset = 0
        while offset < count {
            let written = archive_write_data(archive, bytes + offset, count - offset)
            guard written > 0 else {
                // Never drop the rest of an entry silently.
                try check(written < 0 ? CInt(truncatingIfNeeded: written) : ARCHIVE_FATAL)
                throw DBToolError(.ioError, "can not write the archive \(destination): libarchive wrote nothing")
            }
            offset += written
        }
    }

    private func check(_ code: CInt) throws {
        guard code < ARCHIVE_OK else { return }  // ARCHIVE_OK or better
        if code == ARCHIVE_WARN { return }
        if let error = output.sink.error { throw error }  // the write behind failed: its errno says why
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive error \(code)"
        let status = writeFailureStatus(Errno(archive_errno(archive)))
        throw DBToolError(status, "can not write the archive \(destination): \(message)")
    }
}


/// The sink as libarchive's callback reaches it: one class reference.
private final class SinkBox {
    let sink: any ArchiveSink
    init(_ sink: any ArchiveSink) { self.sink = sink }
}
