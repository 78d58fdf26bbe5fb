/// Turns a location given by a user into a store: the one place that tells
/// object storage (`s3://BUCKET/PREFIX/`) from a local path.
public enum StoreLocation {
    /// Whether `text` names object storage rather than a local path.
    public static func isObjectStorage(_ text: String) -> Bool { text.hasPrefix("s3://") }

    /// What follows the scheme of an object storage location; nil for a local path.
    static func objectPath(of text: String) -> Substring? {
        isObjectStorage(text) ? text.dropFirst("s3://".count) : nil
    }

    /// The store at `location`: an `s3://BUCKET/PREFIX/` prefix, or a directory.
    ///
    /// - parameters:
    ///   - location: `s3://BUCKET/PREFIX/` or a directory.
    ///   - objectStore: The endpoint and credentials of object storage.
    ///   - upload: How objects go up to object storage.
    ///   - tempPrefix: The prefix of the temp files a directory store writes
    ///     (each command its own, so that it cleans up only its own).
    ///   - what: What the location is, for errors: "the backup directory".
    static func store(
        _ location: String, objectStore: ObjectStoreOptions, upload: UploadOptions = UploadOptions(), tempPrefix: String, what: String
    ) throws -> any Store {
        if isObjectStorage(location) {
            return try S3Store(prefix: ObjectLocation(location), options: objectStore, upload: upload)
        }
        return DirectoryStore(path: try LocalPath.resolve(location, what: what), tempPrefix: tempPrefix)
    }

    /// The store that holds the object `location` names, and its key there
    /// (`latest` still to resolve by the caller).
    ///
    /// - throws: ``DBToolError`` 64 for an object storage prefix (it names no object).
    static func object(_ location: String, objectStore: ObjectStoreOptions, what: String) throws -> (any Store, String) {
        if isObjectStorage(location) {
            let object = try ObjectLocation(location)
            guard !object.name.isEmpty, !object.key.hasSuffix("/") else {
                throw DBToolError(
                    .usage, "\(location) names a prefix, not \(what)",
                    hint: "Name one archive (see `dbtool backup list \(location)`), or PREFIX/latest for the newest.")
            }
            let folder = ObjectLocation(bucket: object.bucket, key: object.parentPrefix)
            return (try S3Store(prefix: folder, options: objectStore), object.name)
        }
        let path = try LocalPath.resolve(location, what: what)
        // Read only: no temp file is ever written there.
        return (DirectoryStore(path: LocalPath.parent(of: path), tempPrefix: ".dbtool-read-"), LocalPath.name(of: path))
    }

    /// Whether `location` names a folder of object storage (ending with `/`,
    /// or a bare bucket) or an existing local directory: what a replica is.
    static func namesFolder(_ location: String) throws -> Bool {
        if isObjectStorage(location) {
            let object = try ObjectLocation(location)
            return object.key.isEmpty || object.key.hasSuffix("/")
        }
        return location != "-" && FileSystem.isDirectory(location)
    }
}
