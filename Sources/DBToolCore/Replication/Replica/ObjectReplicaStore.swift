import Foundation

/// A replica under a prefix of S3-compatible storage: Litestream's `s3`
/// replica (`PREFIX/0000/MIN-MAX.ltx` for level 0). Each file is uploaded whole (one PUT, or a multipart upload
/// for a large snapshot) with its header's time in the
/// `x-amz-meta-litestream-timestamp` metadata Litestream reads.
final class ObjectReplicaStore: ReplicaStore {
    let prefix: ObjectLocation
    let store: ObjectStore
    let upload: UploadOptions

    init(_ prefix: ObjectLocation, options: ObjectStoreOptions, upload: UploadOptions = UploadOptions()) throws {
        self.prefix = ObjectLocation(bucket: prefix.bucket, key: prefix.prefix)
        store = try ObjectStore(options)
        self.upload = upload
    }

    var description: String { prefix.description }

    /// A level's folder: four hexadecimal digits (`0000/`, `0009/`), as
    /// Litestream's S3 client names them (its file replica says `ltx/0/`).
    private func levelFolder(_ level: Int) -> String {
        let digits = String(level, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "/"
    }

    private func location(_ name: LTXFileName) -> ObjectLocation { prefix.appending(levelFolder(name.level) + name.fileName) }

    func files(level: Int, firstTXIDs: ClosedRange<UInt64>) throws -> [ReplicaFile] {
        let levelPrefix = prefix.prefix + levelFolder(level)
        // Keys sort by their first TXID (16 hexadecimal digits): the listing starts
        // after the bare digits of the lowest (a prefix of its keys) and stops
        // at those of the next after the highest.
        let startAfter = firstTXIDs.lowerBound == 0 ? nil : levelPrefix + LTXFileName.hex(firstTXIDs.lowerBound)
        let endBefore = firstTXIDs.upperBound == .max ? nil : levelPrefix + LTXFileName.hex(firstTXIDs.upperBound + 1)
        return try store.list(bucket: prefix.bucket, prefix: levelPrefix, startAfter: startAfter, endBefore: endBefore).compactMap {
            object -> ReplicaFile? in
            guard let name = LTXFileName(level: level, fileName: String(object.key.dropFirst(levelPrefix.count))),
                firstTXIDs.contains(name.minTXID)
            else { return nil }
            // The upload's time, to the second: a second later is never before
            // the file's own time (see ``exactTimestamp(of:)`` for that).
            let uploaded = ISOTime.parse(object.lastModified).map { $0.addingTimeInterval(1) } ?? .distantFuture
            return ReplicaFile(name: name, size: object.size, createdAt: uploaded)
        }.sorted { $0.name < $1.name }
    }

    /// The time the file's header records, from its metadata (a HEAD).
    func exactTimestamp(of name: LTXFileName) throws -> Date? {
        guard let info = try store.head(location(name)) else { return nil }
        return info.metadata["litestream-timestamp"].flatMap(ISOTime.parse)
    }

    func write(_ name: LTXFileName, from source: String, timestamp: Date) throws {
        let headers =
            ["x-amz-meta-litestream-timestamp: \(ISOTime.text(timestamp))"]
            + (upload.storageClass.map { ["x-amz-storage-class: \($0)"] } ?? []) + upload.encryptionHeaders
        let stream = MultipartUploadStream(
            store: store, location: location(name), partSize: upload.partSize, threads: upload.threads, headers: headers)
        let input: FileDescriptor
        do {
            input = try FileDescriptor.open(source, .readOnly)
        } catch {
            throw error.reported(.noInput)
        }
        defer { input.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        do {
            while true {
                let count = try input.read(into: buffer)
                if count == 0 { break }
                guard stream.write(buffer.baseAddress!, count: count) else { break }
            }
        } catch {
            stream.abort()
            throw error.reported(.ioError)
        }
        do {
            try stream.publish(as: nil)
        } catch {
            stream.abort()
            throw error
        }
    }

    func open(_ name: LTXFileName) throws -> LTXDecoder.Source {
        let reader = try ObjectReader(store: store, location: location(name))
        var block = UnsafeRawBufferPointer(start: nil, count: 0)
        var used = 0
        return { buffer in
            if used == block.count {
                block = try reader.nextBlock()
                used = 0
                if block.isEmpty { return 0 }
            }
            let count = min(buffer.count, block.count - used)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: block[used..<(used + count)]))
            used += count
            return count
        }
    }

    func delete(_ name: LTXFileName) throws {
        try store.delete(location(name))
    }

    func readRecord() throws -> Data? {
        try store.getSmall(prefix.appending(ReplicaRecord.name), limit: ReplicaRecord.sizeLimit)
    }

    func createRecord(_ data: Data) throws -> Bool {
        try data.withUnsafeBytes { try store.putObjectIfAbsent(prefix.appending(ReplicaRecord.name), body: $0, headers: upload.encryptionHeaders) }
    }
}
