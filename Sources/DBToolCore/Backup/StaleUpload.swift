/// An upload a backup started, as its lock file keeps it (`upload TOKEN
/// NAME`), so that the next run aborts it when the backup was killed:
/// uploads are attributed to their database that way, never by their name
/// (another database may share it, and upload right now).
struct StaleUpload: Equatable {
    /// The archive's name in its repository.
    var name: String
    /// The store's token of the upload (an S3 multipart upload's id).
    var token: String

    init(name: String, token: String) {
        self.name = name
        self.token = token
    }

    /// Parses a lock file's note; nil for anything else.
    init?(note: String?) {
        guard let fields = note?.split(separator: " ", maxSplits: 2), fields.count == 3, fields[0] == "upload" else { return nil }
        token = String(fields[1])
        name = String(fields[2])
    }

    /// The note written in the lock file.
    var note: String { "upload \(token) \(name)" }
}
