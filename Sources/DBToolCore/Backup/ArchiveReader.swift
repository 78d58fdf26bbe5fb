internal import DBToolLibArchive
import FoundationEssentials

/// Reads an archive of any format libarchive knows, entry by entry, streaming
/// each entry's content through a fixed buffer.
final class ArchiveReader {
    /// The kinds of entries. Only regular files and directories are expected
    /// in a backup: the others are refused by restore.
    enum Kind: Equatable {
        case file, directory, symbolicLink, hardLink, other
    }

    /// An archive entry's header.
    struct Entry: Equatable {
        var name: String
        var kind: Kind
        var size: Int64
        var mode: mode_t
        var modified: Int
        var linkTarget: String?
    }

    private let archive: OpaquePointer
    private let path: String
    /// Where the bytes come from.
    private let source: SourceBox

    /// Opens the archive file at `path` (see ``ArchiveFile``); `passphrase`
    /// decrypts an encrypted zip.
    convenience init(path: String, passphrase: String? = nil) throws {
        try self.init(source: ArchiveFile(path: path), name: path, passphrase: passphrase)
    }

    /// Opens an archive read from `source` block by block (a local file, a
    /// pipe, an object in object storage); `name` names it in messages.
    init(source: any ArchiveSource, name: String, passphrase: String? = nil) throws {
        guard let archive = archive_read_new() else {
            throw DBToolError(.software, "libarchive could not allocate an archive reader")
        }
        self.archive = archive
        path = name
        let box = SourceBox(source)
        self.source = box
        try prepare(passphrase: passphrase)
        archive_read_set_callback_data(archive, Unmanaged.passUnretained(box).toOpaque())
        archive_read_set_read_callback(archive) { _, client, pointer in
            guard let client, let pointer else { return -1 }
            let box = Unmanaged<SourceBox>.fromOpaque(client).takeUnretainedValue()
            do {
                let block = try box.source.nextBlock()
                pointer.pointee = block.baseAddress
                return block.count
            } catch {
                box.failure = error
                return -1
            }
        }
        if source.isSeekable {
            archive_read_set_seek_callback(archive) { _, client, offset, whence in
                guard let client else { return Int64(ARCHIVE_FATAL) }
                let box = Unmanaged<SourceBox>.fromOpaque(client).takeUnretainedValue()
                return box.source.seek(to: offset, whence: whence) ?? Int64(ARCHIVE_FATAL)
            }
        }
        guard archive_read_open1(archive) == ARCHIVE_OK else { throw self.error("can not open the archive") }
    }

    private func prepare(passphrase: String?) throws {
        // Only what `dbtool backup` writes: tar (compressed with zstd, gzip
        // or xz, or not) and zip. With every format on, libarchive reads a
        // text file as an mtree listing of paths.
        for filter in [archive_read_support_filter_zstd, archive_read_support_filter_gzip, archive_read_support_filter_xz] { _ = filter(archive) }
        archive_read_support_format_tar(archive)
        archive_read_support_format_zip(archive)
        if let passphrase, archive_read_add_passphrase(archive, passphrase) != ARCHIVE_OK {
            throw DBToolError(.software, "libarchive refused the passphrase")
        }
    }

    deinit {
        archive_read_free(archive)
    }

    /// The next entry's header, or nil at the end of the archive.
    ///
    /// - throws: ``DBToolError`` (65) on a truncated or corrupt archive.
    func nextEntry() throws -> Entry? {
        var entry: OpaquePointer?
        let code = archive_read_next_header(archive, &entry)
        if code == ARCHIVE_EOF { return nil }
        guard code >= ARCHIVE_WARN, let entry else { throw error("can not read the next entry of the archive") }
        let type = archive_entry_filetype(entry)
        let kind: Kind
        if archive_entry_hardlink(entry) != nil {
            kind = .hardLink
        } else {
            switch type {
            case 0o100000: kind = .file
            case 0o040000: kind = .directory
            case 0o120000: kind = .symbolicLink
            default: kind = .other
            }
        }
        let link = archive_entry_hardlink(entry) ?? archive_entry_symlink(entry)
        return Entry(
            name: archive_entry_pathname(entry).map { String(cString: $0) } ?? "",
            kind: kind,
            size: archive_entry_size(entry),
            mode: archive_entry_perm(entry),
            modified: archive_entry_mtime(entry),
            linkTarget: link.map { String(cString: $0) })
    }

    /// Streams the current entry's content to `body`, a buffer at a time.
    func readData(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: ArchiveWriter.bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = archive_read_data(archive, buffer, ArchiveWriter.bufferSize)
            if count == 0 { return }
            guard count > 0 else { throw error("can not read an entry of the archive") }
            try body(UnsafeRawBufferPointer(start: buffer, count: count))
        }
    }

    private func error(_ what: String) -> DBToolError {
        if let failure = source.failure { return DBToolError.wrapping(failure) }
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive error"
        let lowercased = message.lowercased()
        if lowercased.contains("passphrase") || lowercased.contains("decrypt") || lowercased.contains("encrypt")
        {
            return DBToolError(
                .noPermission, "\(what) \(path): \(message)",
                hint: "The archive is encrypted: pass the passphrase it was written with (--passphrase-file, --passphrase-command or DBTOOL_PASSPHRASE).")
        }
        if message.hasPrefix("Unrecognized archive format") {
            return DBToolError(
                .dataError, "the archive \(path) is not a tar or zip archive, the formats dbtool backup writes (compressed with zstd, gzip or xz, or not)",
                hint: "Check the path; list the archives with `dbtool backup list DIR`.")
        }
        return DBToolError(.dataError, "\(what) \(path): \(message) (the archive is truncated or corrupt)")
    }
}

/// The source as libarchive's callback reaches it, with the error it threw.
private final class SourceBox {
    let source: any ArchiveSource
    var failure: (any Error)?
    init(_ source: any ArchiveSource) { self.source = source }
}
