import FoundationEssentials

/// An archive opened for one reading, front to back: by a restore or a
/// verify. Opened once, read once.
struct OpenedArchive {
    /// The archive as messages and reports name it (an absolute path, or
    /// the object's URL once `latest` is resolved).
    let name: String
    let source: any ArchiveSource
    /// The archive's size, for progress; nil for a pipe.
    let size: Int64?
    /// The archive's path when it is a local file: what a restore may not
    /// write onto.
    var localPath: String? = nil

    /// Opens `location`: a path (a file, a pipe such as `/dev/stdin`, a
    /// FIFO), `-` for the standard input, an `s3://` object, or
    /// `REPOSITORY/latest` for the newest archive there that dbtool trusts
    /// (see ``ArchiveCatalog``).
    ///
    /// - throws: ``DBToolError``: 64 for an empty path, 66 for a missing
    ///   archive or object, 77 when it can not be read, 65 for a directory.
    static func open(_ location: String, objectStore: ObjectStoreOptions, extensions: [String]) throws -> OpenedArchive {
        if location == "-" {
            let file = try ArchiveFile(path: "/dev/stdin")
            return OpenedArchive(name: "the standard input", source: file, size: file.size)
        }
        let (repository, name) = try ArchiveRepository.archive(location, objectStore: objectStore)
        return try repository.open(try ArchiveCatalog.resolve(name, in: repository, extensions: extensions))
    }
}
