import Crypto
import Foundation

/// An archive streamed to object storage while it is written: bytes fill a
/// part buffer; each full part is uploaded by one of `threads` workers
/// while the next fills. Memory is bounded by `threads + 1` parts, whatever
/// the archive's size, and nothing is written to local disk.
///
/// The object does not exist under its key until ``complete()``; until
/// then ``abort()`` (or a failure) leaves nothing behind but an upload that
/// ``abort()`` also cancels. The whole archive's SHA-256 is computed as it
/// streams; each part carries its own SHA-256, which the store checks.
final class MultipartUploadStream: ArchiveSink {
    let location: ObjectLocation
    let uploadId: String
    private let store: ObjectStore
    private let partSize: Int
    private let shared: Shared
    private var current: UnsafeMutableRawBufferPointer?
    private var filled = 0
    private var nextNumber = 1
    private var hash = SHA256()
    private var isFinished = false
    /// The archive's size and SHA-256, once finished.
    private(set) var size: Int64 = 0
    private(set) var sha256: SHA256.Digest?

    /// Starts the upload (CreateMultipartUpload) and its workers.
    ///
    /// - parameters:
    ///   - headers: Headers of the object (storage class).
    ///   - progress: Called on a worker thread with the bytes uploaded so far.
    init(
        store: ObjectStore, location: ObjectLocation, partSize: Int, threads: Int, headers: [String],
        progress: (@Sendable (Int64) -> Void)? = nil
    ) throws {
        self.store = store
        self.location = location
        self.partSize = partSize
        uploadId = try store.createMultipartUpload(location, headers: headers)
        shared = Shared(buffers: threads + 1, progress: progress)
        for index in 0..<max(1, threads) {
            let thread = Thread { [shared, location, uploadId, configuration = store.configuration] in
                shared.work(configuration, location: location, uploadId: uploadId)
            }
            thread.name = "dbtool-upload-\(index + 1)"
            thread.start()
        }
    }

    deinit {
        shared.stop()
        if let current { shared.recycle(current) }
        shared.deallocateAll()
    }

    var error: DBToolError? { shared.state.withLock { $0.error } }

    func write(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        hash.update(bufferPointer: UnsafeRawBufferPointer(start: bytes, count: count))
        size += Int64(count)
        var offset = 0
        while offset < count {
            guard error == nil else { return false }
            let buffer: UnsafeMutableRawBufferPointer
            if let current {
                buffer = current
            } else {
                guard let free = shared.takeFreeBuffer(size: partSize) else { return false }
                current = free
                buffer = free
            }
            let length = min(partSize - filled, count - offset)
            UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + length)])
                .copyMemory(from: UnsafeRawBufferPointer(start: bytes + offset, count: length))
            filled += length
            offset += length
            if filled == partSize { submitCurrent() }
        }
        return error == nil
    }

    /// Uploads the last part and waits for every part. The object is not
    /// visible yet: see ``complete()``.
    func finish() throws {
        if !isFinished {
            isFinished = true
            sha256 = hash.finalize()
            if current != nil || nextNumber == 1 {
                // S3 needs one part at least, even for an empty stream.
                if current == nil { current = shared.takeFreeBuffer(size: partSize) }
                submitCurrent()
            }
            shared.waitForAll()
        }
        if let error { throw error }
    }

    /// Publishes the object under its key (CompleteMultipartUpload).
    func complete() throws {
        try finish()
        let parts = shared.state.withLock { $0.parts }
        try store.completeMultipartUpload(location, uploadId: uploadId, parts: parts)
    }

    /// Cancels the upload: the store drops the parts, no object appears.
    func abort() throws {
        shared.stop()
        try store.abortMultipartUpload(location, uploadId: uploadId)
    }

    private func submitCurrent() {
        guard let buffer = current else { return }
        shared.submit(Job(number: nextNumber, buffer: buffer, count: filled))
        nextNumber += 1
        current = nil
        filled = 0
    }

    /// A part to upload.
    fileprivate struct Job: @unchecked Sendable {  // the buffer belongs to the job until recycled
        var number: Int
        var buffer: UnsafeMutableRawBufferPointer
        var count: Int
    }

    /// What the writer and the workers share, under one condition lock.
    fileprivate final class Shared: @unchecked Sendable {  // every field under `condition`
        struct State {
            var jobs: [Job] = []
            var free: [UnsafeMutableRawBufferPointer] = []
            var allocated = 0
            var running = 0
            var parts: [ObjectStore.UploadedPart] = []
            var error: DBToolError?
            var stopped = false
            var uploaded: Int64 = 0
        }
        let condition = NSCondition()
        private var _state = State()
        let maximumBuffers: Int
        let progress: (@Sendable (Int64) -> Void)?

        init(buffers: Int, progress: (@Sendable (Int64) -> Void)?) {
            maximumBuffers = buffers
            self.progress = progress
        }

        /// Runs `body` on the state under the lock, waking every waiter after.
        var state: LockedState { LockedState(shared: self) }

        struct LockedState {
            let shared: Shared
            func withLock<T>(_ body: (inout State) -> T) -> T {
                shared.condition.lock()
                defer {
                    shared.condition.broadcast()
                    shared.condition.unlock()
                }
                return body(&shared._state)
            }
        }

        /// A free buffer (waiting for one when all are in flight), or nil once failed.
        func takeFreeBuffer(size: Int) -> UnsafeMutableRawBufferPointer? {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if _state.error != nil || _state.stopped { return nil }
                if let buffer = _state.free.popLast() { return buffer }
                if _state.allocated < maximumBuffers {
                    _state.allocated += 1
                    return UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
                }
                condition.wait()
            }
        }

        func submit(_ job: Job) {
            state.withLock { $0.jobs.append(job) }
        }

        func recycle(_ buffer: UnsafeMutableRawBufferPointer) {
            state.withLock { $0.free.append(buffer) }
        }

        /// Waits until no part is queued or uploading.
        func waitForAll() {
            condition.lock()
            defer { condition.unlock() }
            while (!_state.jobs.isEmpty || _state.running > 0) && _state.error == nil && !_state.stopped { condition.wait() }
            while _state.running > 0 { condition.wait() }
        }

        /// Stops the workers (after their current part).
        func stop() {
            state.withLock { $0.stopped = true }
        }

        func deallocateAll() {
            condition.lock()
            while _state.running > 0 { condition.wait() }
            for buffer in _state.free { buffer.deallocate() }
            for job in _state.jobs { job.buffer.deallocate() }
            _state.free = []
            _state.jobs = []
            condition.unlock()
        }

        /// A worker: uploads queued parts, on a connection of its own, until stopped.
        func work(_ configuration: ObjectStore.Configuration, location: ObjectLocation, uploadId: String) {
            let store: ObjectStore
            do {
                store = try ObjectStore(configuration)
            } catch {
                state.withLock { state in if state.error == nil { state.error = DBToolError.wrapping(error) } }
                return
            }
            while true {
                condition.lock()
                while _state.jobs.isEmpty && !_state.stopped { condition.wait() }
                if _state.stopped || _state.error != nil {
                    condition.unlock()
                    return
                }
                let job = _state.jobs.removeFirst()
                _state.running += 1
                condition.unlock()
                let outcome: Result<ObjectStore.UploadedPart, DBToolError>
                do {
                    outcome = .success(
                        try store.uploadPart(
                            location, uploadId: uploadId, number: job.number, body: UnsafeRawBufferPointer(start: job.buffer.baseAddress, count: job.count)))
                } catch {
                    outcome = .failure(DBToolError.wrapping(error))
                }
                let uploaded = state.withLock { state -> Int64 in
                    state.running -= 1
                    state.free.append(job.buffer)
                    switch outcome {
                    case .success(let part):
                        state.parts.append(part)
                        state.uploaded += Int64(job.count)
                    case .failure(let error):
                        if state.error == nil { state.error = error }
                    }
                    return state.uploaded
                }
                progress?(uploaded)
            }
        }
    }
}
