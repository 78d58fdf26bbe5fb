import Crypto
import DatabaseKit
import FoundationEssentials

/// Reads a file ahead on a thread of its own and hashes it on another, so
/// that reading, SHA-256 and compression on the calling thread overlap (as
/// `tar | tee >(sha256sum) | zstd` overlaps processes), with memory bounded
/// by three buffers.
///
/// The reading thread fills a ring of buffers, the hashing thread hashes
/// each once it is read, and ``next()`` hands them to the caller in order
/// once hashed. The threads hold only the shared `Ring`, never the
/// reader: releasing the reader stops and joins them.
final class HashingReader {
    private let ring: Ring
    private var consumed = 0
    private var isAtEnd = false

    /// Starts reading the first `length` bytes of `descriptor` (with `pread`;
    /// the descriptor stays open and its offset untouched).
    init(descriptor: FileDescriptor, length: Int64) {
        ring = Ring(descriptor: descriptor, length: length)
        WorkerThreads.start(name: "read-ahead", receivesSignals: true) { [ring] _ in ring.readAhead() }
        WorkerThreads.start(name: "sha256", receivesSignals: true) { [ring] _ in ring.hashAhead() }
    }

    deinit {
        ring.stop()
    }

    /// The next chunk, nil at the end. The chunk stays valid until the next call.
    func next() throws -> UnsafeRawBufferPointer? {
        if isAtEnd { return try end() }
        if consumed > 0 { ring.free.signal() }  // the previous chunk is done with
        ring.filled.wait()
        let slot = consumed % Ring.slots
        consumed += 1
        let count = ring.counts[slot]
        if count > 0 { return UnsafeRawBufferPointer(start: ring.buffers[slot], count: count) }
        isAtEnd = true
        ring.stop()
        return try end()
    }

    /// The SHA-256 of everything read, once ``next()`` returned nil.
    var sha256: SHA256.Digest? { ring.shared.withLock { $0.digest } }

    /// Stops the reading thread and waits for it: no buffer is touched after this.
    func join() { ring.stop() }

    /// nil at the end of the file, or the error that stopped the reading.
    private func end() throws -> UnsafeRawBufferPointer? {
        if let failure = ring.shared.withLock({ $0.failure }) { throw failure }
        return nil
    }

    /// What the two threads share besides the buffers.
    fileprivate struct Shared {
        var digest: SHA256.Digest?
        var failure: DBToolError?
        var cancelled = false
    }

    /// What the threads share: the ring, and ``Shared`` under its lock. A
    /// buffer goes from ``BufferRing/free`` (the reader fills it) to
    /// ``unhashed`` (the hasher hashes it) to ``BufferRing/filled`` (the
    /// caller takes it), and back.
    fileprivate final class Ring: BufferRing<Shared>, @unchecked Sendable {
        let descriptor: FileDescriptor
        let length: Int64
        /// Buffers read and not yet hashed.
        let unhashed = Tally()
        private var isStopped = false  // touched by the caller's side only

        init(descriptor: FileDescriptor, length: Int64) {
            self.descriptor = descriptor
            self.length = length
            super.init(shared: Shared())
        }

        /// Called by the caller's side: cancels the threads and waits for their end.
        func stop() {
            guard !isStopped else { return }
            isStopped = true
            shared.withLock { $0.cancelled = true }
            // Wake both threads wherever they wait; each returns at its next
            // wait, never touching a buffer the other may still hold.
            free.signal()
            unhashed.signal()
            finished.wait()
            finished.wait()
        }

        /// The reading thread: fills the buffers in turn; a count of 0 ends
        /// the stream (the end of the file, or a failure).
        func readAhead() {
            var offset: Int64 = 0
            var slot = 0
            defer { finished.signal() }
            while true {
                free.wait()
                if shared.withLock({ $0.cancelled }) { return }
                var count = 0
                let wanted = Int(min(Int64(ArchiveWriter.bufferSize), length - offset))
                if wanted > 0 {
                    let buffer = UnsafeMutableRawBufferPointer(start: buffers[slot], count: wanted)
                    let reason: String
                    do {
                        count = try descriptor.read(fromAbsoluteOffset: offset, into: buffer)
                        reason = "it got shorter while being archived"
                    } catch {
                        reason = error.errno.description
                    }
                    if count == 0 {
                        let failure = DBToolError(.ioError, "can not read \(descriptor.path): \(reason)")
                        shared.withLock { $0.failure = failure }
                    }
                }
                counts[slot] = count
                offset += Int64(count)
                unhashed.signal()
                if count == 0 { return }
                slot = (slot + 1) % Self.slots
            }
        }

        /// The hashing thread: hashes each buffer read, then hands it on;
        /// at the end of the file, records the digest.
        func hashAhead() {
            var hash = SHA256()
            var slot = 0
            defer { finished.signal() }
            while true {
                unhashed.wait()
                if shared.withLock({ $0.cancelled }) { return }
                let count = counts[slot]
                if count > 0 {
                    hash.update(bufferPointer: UnsafeRawBufferPointer(start: buffers[slot], count: count))
                } else if shared.withLock({ $0.failure == nil }) {
                    let result = hash.finalize()
                    shared.withLock { $0.digest = result }
                }
                filled.signal()
                if count == 0 { return }  // the caller sees a count of 0
                slot = (slot + 1) % Self.slots
            }
        }
    }
}
