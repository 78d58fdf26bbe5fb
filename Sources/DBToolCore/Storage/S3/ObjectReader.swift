import Foundation

/// An object read once, front to back, in ranged GETs of ``blockSize``:
/// each range is retried on its own, so a network error costs one block,
/// not the whole download; `If-Match` refuses an object replaced midway.
/// Memory: one block.
final class ObjectReader: ArchiveSource {
    let location: ObjectLocation
    /// The object's size and entity tag: from a HEAD, or from the first block.
    private(set) var info: ObjectStore.ObjectInfo?
    private let store: ObjectStore
    private let buffer: UnsafeMutableRawBufferPointer
    private var offset: Int64 = 0
    /// Called with the bytes read so far and the object's size.
    var progress: ((Int64) -> Void)?

    static let blockSize = 8 << 20

    /// Opens `location` (HEAD).
    ///
    /// - throws: ``DBToolError`` 66 when there is no such object.
    init(store: ObjectStore, location: ObjectLocation) throws {
        guard let info = try store.head(location) else {
            throw DBToolError(.noInput, "no archive at \(location)", hint: "List the archives with: dbtool backup list s3://\(location.bucket)/\(location.parentPrefix)")
        }
        self.store = store
        self.location = location
        self.info = info
        buffer = .allocate(byteCount: Self.blockSize, alignment: 64)
    }

    /// Opens `location` without a request: its size and entity tag come
    /// with the first block (a missing object is 66 then).
    init(streaming store: ObjectStore, location: ObjectLocation) {
        self.store = store
        self.location = location
        info = nil
        buffer = .allocate(byteCount: Self.blockSize, alignment: 64)
    }

    deinit {
        buffer.deallocate()
    }

    func nextBlock() throws -> UnsafeRawBufferPointer {
        try Interruption.check()
        guard let info else {
            let (data, size, etag) = try store.getFirst(location, length: Self.blockSize)
            self.info = ObjectStore.ObjectInfo(size: size, etag: etag, metadata: [:])
            data.copyBytes(to: buffer)
            offset = Int64(data.count)
            progress?(offset)
            return UnsafeRawBufferPointer(start: buffer.baseAddress, count: data.count)
        }
        guard offset < info.size else { return UnsafeRawBufferPointer(start: buffer.baseAddress, count: 0) }
        let end = min(info.size, offset + Int64(Self.blockSize))
        let data = try store.get(location, range: offset..<end, etag: info.etag)
        data.copyBytes(to: buffer)
        offset = end
        progress?(offset)
        return UnsafeRawBufferPointer(start: buffer.baseAddress, count: data.count)
    }
}
