import DBToolLibArchive
import Foundation

/// Writes archives with entries `dbtool backup` never makes (links, devices,
/// absolute paths, `..`), with libarchive itself, to prove that restore
/// refuses them.
enum CraftedArchive {
    enum Kind {
        case file(String)
        case directory
        case symbolicLink(to: String)
        case hardLink(to: String)
        case characterDevice
        case fifo
    }

    /// A tar.gz at `path` with `entries` in order.
    static func write(_ path: String, entries: [(name: String, kind: Kind)]) {
        let archive = archive_write_new()!
        defer { archive_write_free(archive) }
        archive_write_set_format_pax_restricted(archive)
        archive_write_add_filter_gzip(archive)
        precondition(archive_write_open_filename(archive, path) == ARCHIVE_OK)
        for (name, kind) in entries {
            let entry = archive_entry_new()!
            defer { archive_entry_free(entry) }
            archive_entry_set_pathname(entry, name)
            archive_entry_set_perm(entry, 0o644)
            var data = Data()
            switch kind {
            case .file(let text):
                data = Data(text.utf8)
                archive_entry_set_filetype(entry, 0o100000)
                archive_entry_set_size(entry, Int64(data.count))
            case .directory:
                archive_entry_set_filetype(entry, 0o040000)
            case .symbolicLink(let target):
                archive_entry_set_filetype(entry, 0o120000)
                archive_entry_set_symlink(entry, target)
            case .hardLink(let target):
                archive_entry_set_filetype(entry, 0o100000)
                archive_entry_set_hardlink(entry, target)
            case .characterDevice:
                archive_entry_set_filetype(entry, 0o020000)
                archive_entry_set_rdev(entry, makedev(1, 3))
            case .fifo:
                archive_entry_set_filetype(entry, 0o010000)
            }
            precondition(archive_write_header(archive, entry) == ARCHIVE_OK)
            if !data.isEmpty {
                _ = data.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) }
            }
        }
        precondition(archive_write_close(archive) == ARCHIVE_OK)
    }

    private static func makedev(_ major: UInt32, _ minor: UInt32) -> dev_t {
        dev_t(major) << 8 | dev_t(minor)
    }
}
