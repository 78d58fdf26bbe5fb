import DatabaseKit
import FoundationEssentials

/// An object read once, front to back. Its first block comes with one
/// ranged GET: the small objects most reads are (the level-0 files of each
/// second, records) need no more. The rest of a larger object streams in
/// one GET, on a thread and a connection of its own, a few chunks ahead of
/// the reader, so that the network and the reader work at once; a transfer
/// broken midway goes on from where it stopped. `If-Match` refuses an
/// object replaced meanwhile. Memory: one block and a few chunks.
final class ObjectReader: ArchiveSource {
    let location: ObjectLocation
    /// The object's size and entity tag: from a HEAD, or from the first block.
    private(set) var info: ObjectStore.ObjectInfo?
    private let store: ObjectStore
    private let buffer: UnsafeMutableRawBufferPointer
    private var offset: Int64 = 0
    private var rest: ObjectPrefetch?
    /// Called with the bytes read so far and the object's size.
    var progress: ((Int64) -> Void)?

    static let blockSize = 1 << 20

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
        rest?.cancel()
        buffer.deallocate()
    }

    func nextBlock() throws -> UnsafeRawBufferPointer {
        try Interruption.check()
        if let rest {
            let block = try rest.next()
            offset += Int64(block.count)
            if !block.isEmpty { progress?(offset) }
            return block
        }
        let data: Data
        if let info {
            guard offset < info.size else { return UnsafeRawBufferPointer(start: buffer.baseAddress, count: 0) }
            data = try store.get(location, range: 0..<min(info.size, Int64(Self.blockSize)), etag: info.etag)
        } else {
            let (first, size, etag) = try store.getFirst(location, length: Self.blockSize)
            info = ObjectStore.ObjectInfo(size: size, etag: etag, metadata: [:])
            data = first
        }
        data.copyBytes(to: buffer)
        offset = Int64(data.count)
        progress?(offset)
        if let info, offset < info.size {
            rest = ObjectPrefetch(store.configuration, location: location, from: offset, size: info.size, etag: info.etag)
        }
        return UnsafeRawBufferPointer(start: buffer.baseAddress, count: data.count)
    }
}

/// The rest of an object, streamed by a thread of its own into a few
/// chunks the reader takes in order (``ObjectReader``).
private final class ObjectPrefetch: @unchecked Sendable {
    static let chunkSize = 1 << 20
    /// Chunks in flight: filled, waiting, or being read.
    static let depth = 4

    private struct State {
        var ready: [(chunk: UnsafeMutableRawBufferPointer, count: Int)] = []
        var free: [UnsafeMutableRawBufferPointer] = []
        var allocated = 0
        var finished = false
        var error: (any Error)?
        var cancelled = false
    }

    /// The reader went away: the thread stops.
    private struct Cancelled: Error {}

    private let shared = Locked(State())
    /// The chunk the reader holds, given back at its next call.
    private var current: UnsafeMutableRawBufferPointer?

    init(_ configuration: ObjectStore.Configuration, location: ObjectLocation, from offset: Int64, size: Int64, etag: String) {
        WorkerThreads.start(name: "read") { [self] _ in
            do {
                try stream(configuration, location: location, from: offset, size: size, etag: etag)
                shared.withLock { $0.finished = true }
            } catch is Cancelled {
                return
            } catch {
                shared.withLock { $0.error = error }
            }
            shared.broadcast()
        }
    }

    deinit {
        let buffers = shared.withLock { state in state.free + state.ready.map(\.chunk) }
        for buffer in buffers { buffer.deallocate() }
        current?.deallocate()
    }

    /// The next chunk (empty at the end), valid until the next call.
    func next() throws -> UnsafeRawBufferPointer {
        if let current {
            shared.withLock { $0.free.append(current) }
            shared.broadcast()
            self.current = nil
        }
        let item = try shared.withLock(waitingUntil: { !$0.ready.isEmpty || $0.finished || $0.error != nil }) {
            state -> (chunk: UnsafeMutableRawBufferPointer, count: Int)? in
            if !state.ready.isEmpty { return state.ready.removeFirst() }
            if let error = state.error { throw error }
            return nil
        }
        shared.broadcast()
        guard let item else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        current = item.chunk
        return UnsafeRawBufferPointer(start: item.chunk.baseAddress, count: item.count)
    }

    func cancel() {
        shared.withLock { $0.cancelled = true }
        shared.broadcast()
    }

    /// Reads from `offset` to `size` in one GET, going on from where a
    /// broken transfer stopped, up to the store's retries.
    private func stream(_ configuration: ObjectStore.Configuration, location: ObjectLocation, from start: Int64, size: Int64, etag: String) throws {
        let store = try ObjectStore(configuration)
        var offset = start
        var chunk: UnsafeMutableRawBufferPointer?
        var filled = 0
        defer { if let chunk { shared.withLock { $0.free.append(chunk) } } }
        var attempt = 0
        while offset < size {
            do {
                try store.read(
                    location, from: offset, etag: etag.isEmpty ? nil : etag,
                    begin: { total, tag in
                        guard total == size, etag.isEmpty || tag == etag else {
                            throw DBToolError(
                                .dataError, "\(location) was replaced while it was being read", hint: "Run the command again: it reads the new object.")
                        }
                    },
                    receive: { bytes in
                        var bytes = bytes
                        while !bytes.isEmpty {
                            if chunk == nil {
                                chunk = try self.takeFree()
                                filled = 0
                            }
                            let count = min(Self.chunkSize - filled, bytes.count)
                            (chunk!.baseAddress! + filled).copyMemory(from: bytes.baseAddress!, byteCount: count)
                            filled += count
                            offset += Int64(count)
                            bytes = UnsafeRawBufferPointer(rebasing: bytes[count...])
                            if filled == Self.chunkSize {
                                self.push(chunk!, count: filled)
                                chunk = nil
                            }
                        }
                    })
                guard offset >= size else {
                    throw DBToolError(.tempFail, "reading \(location) stopped at byte \(offset) of \(size)", hint: "Run the command again.")
                }
            } catch let broken as ObjectStore.TransferBroken {
                attempt += 1
                guard attempt <= configuration.retries else {
                    throw DBToolError(
                        .tempFail, "reading \(location) failed at byte \(offset) of \(size) after \(attempt) attempts (\(broken.error))",
                        hint: "Check the network and the store, then run the command again.")
                }
                try Interruption.sleep(seconds: min(5, 0.2 * Double(attempt)))
            }
        }
        if let full = chunk, filled > 0 {
            push(full, count: filled)
            chunk = nil
        }
    }

    private func takeFree() throws -> UnsafeMutableRawBufferPointer {
        let reused = try shared.withLock(waitingUntil: { !$0.free.isEmpty || $0.allocated < Self.depth || $0.cancelled }) {
            state -> UnsafeMutableRawBufferPointer? in
            if state.cancelled { throw Cancelled() }
            if let buffer = state.free.popLast() { return buffer }
            state.allocated += 1
            return nil
        }
        return reused ?? .allocate(byteCount: Self.chunkSize, alignment: 64)
    }

    private func push(_ chunk: UnsafeMutableRawBufferPointer, count: Int) {
        shared.withLock { $0.ready.append((chunk, count)) }
        shared.broadcast()
    }
}
