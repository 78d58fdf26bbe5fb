/// An upload a backup started, as its lock file keeps it (`upload TOKEN
/// NAME`), so that the next run aborts it when the backup was killed:
/// uploads are attributed to their database that way, never by their name
/// (another database may share it, and upload right now).
struct StaleUpload: Equatable {
    /// The archive's name in its repository.
    var name: String
    /// The store's token of the upload (an S3 multipart upload's id); nil
    /// while the upload is being created: the store has not answered yet.
    var token: String?

    init(name: String, token: String?) {
        self.name = name
        self.token = token
    }

    /// Parses a lock file's note; nil for anything else.
    init?(note: String?) {
        guard let fields = note?.split(separator: " ", maxSplits: 2), fields.count == 3, fields[0] == "upload" else { return nil }
        token = fields[1] == "-" ? nil : String(fields[1])
        name = String(fields[2])
    }

    /// The note written in the lock file (`-` for a token not known yet).
    var note: String { "upload \(token ?? "-") \(name)" }
}
