import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#endif

/// What `stat(2)` says of a file.
struct FileStatus {
    /// The kinds of file dbtool tells apart.
    enum Kind: Equatable {
        case regular, directory, symbolicLink, fifo, socket, device, other

        /// "a FIFO", "a directory": for messages.
        var description: String {
            switch self {
            case .regular: "a regular file"
            case .directory: "a directory"
            case .symbolicLink: "a symbolic link"
            case .fifo: "a FIFO (named pipe)"
            case .socket: "a socket"
            case .device: "a device"
            case .other: "a special file"
            }
        }
    }

    /// A file's device and inode: its identity, which outlives renames.
    struct Identity: Hashable, Sendable {
        var device: UInt
        var inode: UInt
    }

    private let raw: stat

    init(_ raw: stat) { self.raw = raw }

    var kind: Kind {
        switch raw.st_mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        case S_IFIFO: .fifo
        case S_IFSOCK: .socket
        case S_IFCHR, S_IFBLK: .device
        default: .other
        }
    }

    var size: Int64 { Int64(raw.st_size) }
    /// The permission bits (`0o777`).
    var permissions: mode_t { raw.st_mode & 0o777 }
    /// The permission bits with setuid, setgid and sticky (`0o7777`), as an archive records them.
    var modeBits: mode_t { raw.st_mode & 0o7777 }
    var linkCount: Int { Int(raw.st_nlink) }
    var owner: uid_t { raw.st_uid }
    var identity: Identity { Identity(device: UInt(raw.st_dev), inode: UInt(raw.st_ino)) }
    var accessTime: timespec { raw.st_atim }
    var modificationTime: timespec { raw.st_mtim }
}

extension FileStatus {
    /// The modification time, to the nanosecond.
    var modificationDate: Date {
        Date(timeIntervalSince1970: Double(raw.st_mtim.tv_sec) + Double(raw.st_mtim.tv_nsec) / 1e9)
    }

    /// The modification time, in whole seconds since 1970.
    var modificationSeconds: Int { Int(raw.st_mtim.tv_sec) }
}

/// A path that dbtool would read as a file, but that is a FIFO, a device,
/// a socket or a directory: refused before a byte is read (a FIFO would
/// hang the run), 65.
struct NotRegularFile: Error, ReportableError, CustomStringConvertible {
    let path: String
    let kind: FileStatus.Kind

    var description: String { "\(path) is \(kind.description), not a regular file" }

    var toolError: DBToolError {
        DBToolError(.dataError, "\(description): dbtool reads regular files only", hint: "Check the path.")
    }
}
