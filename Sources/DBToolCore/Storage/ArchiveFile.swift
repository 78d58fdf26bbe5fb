import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A local archive, opened once and read through that one descriptor: the
/// inspection and the extraction of a restore are one pass over the same
/// bytes, whatever happens to the path meanwhile (replaced, renamed).
///
/// A regular file is seekable (a zip reader needs its central directory);
/// a pipe or a FIFO (`/dev/stdin`, `<(cat archive)`) is read once, front to
/// back, which is all a restore needs. The path is opened without blocking,
/// so that a FIFO nobody writes to reads as an empty archive (65) instead
/// of hanging; reads then block, and end on SIGINT or SIGTERM.
final class ArchiveFile: ArchiveSource {
    let path: String
    private let descriptor: FileDescriptor
    private let buffer: UnsafeMutableRawBufferPointer
    /// True for a regular file.
    let isSeekable: Bool
    /// The file's size, for progress (nil for a pipe).
    let size: Int64?
    private var offset: Int64 = 0
    /// Called with the bytes read so far.
    var progress: ((Int64) -> Void)?

    /// Opens the archive at `path`.
    ///
    /// - throws: ``DBToolError``: 66 when there is no such file, 77 when it
    ///   can not be read, 65 for a directory or a device.
    init(path: String) throws {
        self.path = path
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, .readOnly, options: .nonBlocking)
        } catch where error.errno == .noSuchFileOrDirectory {
            throw DBToolError(.noInput, "no archive at \(path): No such file", hint: "Check the path, or list the archives with `dbtool backup list DIR`.")
        } catch {
            throw error.reported(hint: error.errno.isPermissionDenied ? "Check its permissions." : nil)
        }
        let info: FileStatus
        do {
            info = try descriptor.status()
            switch info.kind {
            case .regular, .fifo, .socket: try descriptor.setBlocking()
            default:
                throw DBToolError(.dataError, "\(path) is \(info.kind.description), not an archive", hint: "Give the archive file.")
            }
        } catch {
            descriptor.close()
            throw error
        }
        self.descriptor = descriptor
        isSeekable = info.kind == .regular
        size = isSeekable ? info.size : nil
        buffer = .allocate(byteCount: StreamBuffer.size, alignment: 64)
    }

    deinit {
        buffer.deallocate()
        descriptor.close()
    }

    func nextBlock() throws -> UnsafeRawBufferPointer {
        let count: Int
        do {
            count = try descriptor.read(into: buffer)
        } catch {
            throw error.reported(.ioError)
        }
        offset += Int64(count)
        progress?(offset)
        return UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)
    }

    func seek(to position: Int64, whence: Int32) -> Int64? {
        guard isSeekable else { return nil }
        let result = lseek(descriptor.rawValue, off_t(position), whence)
        guard result >= 0 else { return nil }
        offset = Int64(result)
        return offset
    }
}
