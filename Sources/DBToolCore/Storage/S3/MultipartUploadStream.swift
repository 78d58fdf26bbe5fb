import Crypto
import DatabaseKit
import FoundationEssentials

/// An archive streamed to object storage while it is written: bytes fill a
/// part buffer; each full part is uploaded by one of `threads` workers
/// while the next fills. Memory is bounded by `threads + 1` parts, whatever
/// the archive's size, and nothing is written to local disk.
///
/// An archive smaller than one part goes up in a single PUT, as the AWS CLI
/// does below its multipart threshold: simpler S3-compatible servers take
/// it, and it costs one request. A larger one is a multipart upload,
/// started when its first part is full.
///
/// The object does not exist under its key until ``publish(as:)``; until then
/// ``abort()`` (or a failure) leaves nothing behind. The whole archive's
/// SHA-256 is computed as it streams; each part carries its own SHA-256,
/// which the store checks.
///
/// The writer and the workers share `State` under one `Locked`: its
/// condition hands buffers and jobs between them.
final class MultipartUploadStream: StoreUpload {
    let location: ObjectLocation
    private let store: ObjectStore
    private let partSize: Int
    private let threads: Int
    private let headers: [String]
    /// Told the upload's id once it is started (to clean up after a kill).
    private let started: ((String) -> Void)?
    private let progress: (@Sendable (Int64) -> Void)?
    /// Publish only if no object is under the key (`If-None-Match: *`):
    /// for objects smaller than a part, written in one PUT.
    private let ifAbsent: Bool
    private let shared = Locked(State())
    private var current: UnsafeMutableRawBufferPointer?
    private var filled = 0
    private var nextNumber = 1
    private var hash = SHA256()
    private var uploadId: String?
    private var isFinished = false
    private var isDone = false
    /// The archive's size, and its SHA-256 once finished.
    private(set) var size: Int64 = 0
    private(set) var sha256: String?

    /// What the writer and the workers share.
    private struct State {
        var jobs: [Job] = []
        var free: [UnsafeMutableRawBufferPointer] = []
        var allocated = 0
        var running = 0
        var workers = 0
        var parts: [ObjectStore.UploadedPart] = []
        var error: DBToolError?
        var stopped = false
        var uploaded: Int64 = 0
    }

    /// A part to upload.
    private struct Job: @unchecked Sendable {  // the buffer belongs to the job until recycled
        var number: Int
        var buffer: UnsafeMutableRawBufferPointer
        var count: Int
    }

    /// Prepares the upload; nothing is sent before the first part is full
    /// (or ``publish(as:)``, for a small archive).
    ///
    /// - parameters:
    ///   - store: The connection the small archive's PUT and the multipart
    ///     requests go through (each worker makes its own from its configuration).
    ///   - location: The object's bucket and key.
    ///   - partSize: Bytes of a part (5 MiB at least, S3's smallest).
    ///   - threads: Parts uploaded at once, each on a worker thread.
    ///   - headers: Headers of the object (storage class).
    ///   - started: Told the multipart upload's id once it exists.
    ///   - progress: Called on a worker thread with the bytes uploaded so far.
    ///   - ifAbsent: Publish only if no object has the key yet (a conditional
    ///     PUT); the archive must then fit in one part.
    init(
        store: ObjectStore, location: ObjectLocation, partSize: Int, threads: Int, headers: [String],
        started: ((String) -> Void)? = nil, progress: (@Sendable (Int64) -> Void)? = nil, ifAbsent: Bool = false
    ) {
        self.ifAbsent = ifAbsent
        self.store = store
        self.location = location
        self.partSize = partSize
        self.threads = max(1, threads)
        self.headers = headers
        self.started = started
        self.progress = progress
    }

    deinit {
        abort()
        stopWorkers()
        let buffers = shared.withLock(waitingUntil: { $0.running == 0 && $0.workers == 0 }) { state -> [UnsafeMutableRawBufferPointer] in
            let all = state.free + state.jobs.map(\.buffer)
            state.free = []
            state.jobs = []
            return all
        }
        for buffer in buffers { buffer.deallocate() }
        current?.deallocate()
    }

    var error: DBToolError? { shared.withLock { $0.error } }

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
                guard let free = takeFreeBuffer() else { return false }
                current = free
                buffer = free
            }
            let length = min(partSize - filled, count - offset)
            UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + length)])
                .copyMemory(from: UnsafeRawBufferPointer(start: bytes + offset, count: length))
            filled += length
            offset += length
            if filled == partSize {
                do {
                    try submitCurrent()
                } catch {
                    shared.withLock { state in if state.error == nil { state.error = DBToolError.wrapping(error) } }
                    return false
                }
            }
        }
        return error == nil
    }

    /// Uploads the last part of a multipart upload and waits for every part
    /// (a small archive waits in memory for ``publish(as:)``).
    func finish() throws {
        if !isFinished {
            isFinished = true
            sha256 = hash.finalize().hexString
            if uploadId != nil && current != nil { try submitCurrent() }
            shared.withLock(waitingUntil: { ($0.jobs.isEmpty && $0.running == 0) || $0.error != nil }) { _ in }
        }
        if let error { throw error }
    }

    /// Publishes the object under its key: one PUT for a small archive,
    /// CompleteMultipartUpload otherwise; then, with `otherName`, renames it
    /// (a copy and a delete: S3 has no rename).
    func publish(as otherName: String?) throws {
        try finish()
        if let uploadId {
            guard !ifAbsent else { throw DBToolError(.software, "\(location): an exclusive write larger than a part") }
            let parts = shared.withLock { $0.parts }
            try store.completeMultipartUpload(location, uploadId: uploadId, parts: parts)
        } else {
            let body = current.map { UnsafeRawBufferPointer(rebasing: $0[0..<filled]) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
            if ifAbsent {
                guard try store.putObjectIfAbsent(location, body: body, headers: headers) else {
                    isDone = true
                    throw StoreConflict(key: location.key)
                }
            } else {
                try store.putObject(location, body: body, headers: headers, interruptible: false)
            }
        }
        isDone = true
        if let otherName {
            let renamed = ObjectLocation(bucket: location.bucket, key: location.parentPrefix + otherName)
            try store.copy(location, to: renamed, interruptible: false)
            try store.delete(location, interruptible: false)
        }
    }

    /// Cancels the upload: the store drops the parts, no object appears.
    /// After SIGINT or SIGTERM the request still goes out, bounded (see
    /// ``ObjectStore/abortMultipartUpload(_:uploadId:)``); if it fails, the
    /// next backup of the database aborts the upload.
    func abort() {
        guard !isDone else { return }
        isDone = true
        stopWorkers()
        guard let uploadId else { return }
        do {
            try store.abortMultipartUpload(location, uploadId: uploadId)
        } catch {
            abortFailure = DBToolError.wrapping(error).message
        }
    }

    /// Why the multipart upload could not be aborted, if it was started and
    /// the abort request failed: its parts stay until the next backup of the
    /// database aborts it.
    private(set) var abortFailure: String?

    /// Stops the workers (after the part each is uploading).
    private func stopWorkers() {
        shared.withLock { $0.stopped = true }
        shared.broadcast()
    }

    private func takeFreeBuffer() -> UnsafeMutableRawBufferPointer? {
        let maximum = threads + 1
        let reused = shared.withLock(waitingUntil: { !$0.free.isEmpty || $0.allocated < maximum || $0.error != nil || $0.stopped }) {
            state -> UnsafeMutableRawBufferPointer?? in
            if state.error != nil || state.stopped { return .some(nil) }
            if let buffer = state.free.popLast() { return .some(buffer) }
            state.allocated += 1
            return .none
        }
        switch reused {
        case .some(let buffer): return buffer
        case .none: return UnsafeMutableRawBufferPointer.allocate(byteCount: partSize, alignment: 64)
        }
    }

    private func submitCurrent() throws {
        guard let buffer = current else { return }
        if uploadId == nil { try start() }
        shared.withLock { $0.jobs.append(Job(number: nextNumber, buffer: buffer, count: filled)) }
        shared.broadcast()
        nextNumber += 1
        current = nil
        filled = 0
    }

    /// Starts the multipart upload and its workers.
    private func start() throws {
        let id = try store.createMultipartUpload(location, headers: headers)
        uploadId = id
        started?(id)
        let configuration = store.configuration
        shared.withLock { $0.workers = threads }
        WorkerThreads.start(threads, name: "upload", receivesSignals: true) { [shared, location, progress] _ in
            Self.work(shared, configuration, location: location, uploadId: id, progress: progress)
        }
    }

    /// A worker: uploads queued parts, on a connection of its own, until stopped.
    private static func work(
        _ shared: Locked<State>, _ configuration: ObjectStore.Configuration, location: ObjectLocation, uploadId: String,
        progress: (@Sendable (Int64) -> Void)?
    ) {
        Interruption.blockInCurrentThread()
        defer {
            shared.withLock { $0.workers -= 1 }
            shared.broadcast()
        }
        let store: ObjectStore
        do {
            store = try ObjectStore(configuration)
        } catch {
            shared.withLock { state in if state.error == nil { state.error = DBToolError.wrapping(error) } }
            shared.broadcast()
            return
        }
        while true {
            let next = shared.withLock(waitingUntil: { !$0.jobs.isEmpty || $0.stopped || $0.error != nil }) { state -> Job? in
                guard !state.stopped, state.error == nil else { return nil }
                state.running += 1
                return state.jobs.removeFirst()
            }
            guard let job = next else { return }
            let outcome: Result<ObjectStore.UploadedPart, DBToolError>
            do {
                outcome = .success(
                    try store.uploadPart(
                        location, uploadId: uploadId, number: job.number, body: UnsafeRawBufferPointer(start: job.buffer.baseAddress, count: job.count)))
            } catch {
                outcome = .failure(DBToolError.wrapping(error))
            }
            let uploaded = shared.withLock { state -> Int64 in
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
            shared.broadcast()
            progress?(uploaded)
        }
    }
}
