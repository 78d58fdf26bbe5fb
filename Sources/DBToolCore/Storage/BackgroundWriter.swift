import DatabaseKit
import FoundationEssentials

/// Writes an archive's bytes to a file descriptor on a thread of its own, so
/// that `write(2)` (the copy into the page cache) overlaps compression on
/// the calling thread, as `zstd` does with its I/O thread. Memory is bounded
/// by three buffers.
///
/// The mirror of ``HashingReader``. A write error is kept, reported by the
/// next ``write(_:count:)`` and by ``finish()``; the thread then only drains.
/// The thread holds only the shared `Ring`: releasing the writer finishes
/// the stream and joins the thread.
final class BackgroundWriter {
    private let ring: Ring
    private var slot = 0
    private var isFinished = false

    /// Starts the writing thread on `descriptor` (not closed by the writer).
    init(descriptor: FileDescriptor) {
        ring = Ring(descriptor: descriptor)
        WorkerThreads.start(name: "write-behind", receivesSignals: true) { [ring] _ in ring.drain() }
    }

    deinit {
        _ = try? finish()
    }

    /// The first write error, if any.
    var error: DBToolError? { ring.shared.withLock { $0 } }

    /// Queues `count` bytes (copied); false once a write has failed.
    func write(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset < count {
            guard error == nil else { return false }
            let size = min(StreamBuffer.size, count - offset)
            ring.free.wait()
            ring.buffers[slot].copyMemory(from: bytes + offset, byteCount: size)
            ring.counts[slot] = size
            ring.filled.signal()
            slot = (slot + 1) % Ring.slots
            offset += size
        }
        return error == nil
    }

    /// Ends the stream, waits until everything queued is written, and
    /// throws the write error, if any.
    func finish() throws {
        if !isFinished {
            isFinished = true
            ring.free.wait()
            ring.counts[slot] = 0  // the end of the stream
            ring.filled.signal()
            ring.finished.wait()
        }
        if let error { throw error }
    }

    /// What the two threads share: the ring, and the first write error
    /// (``BufferRing/shared``, under its lock).
    fileprivate final class Ring: BufferRing<DBToolError?>, @unchecked Sendable {
        let descriptor: FileDescriptor

        init(descriptor: FileDescriptor) {
            self.descriptor = descriptor
            super.init(shared: nil)
        }

        /// The writing thread: writes each filled buffer until the end marker.
        func drain() {
            consumeUntilEnd { slot, count in
                if shared.withLock({ $0 == nil }) { writeAll(buffers[slot], count: count) }
            }
        }

        private func writeAll(_ buffer: UnsafeMutableRawPointer, count: Int) {
            do {
                try descriptor.writeAll(UnsafeRawBufferPointer(start: buffer, count: count))
            } catch {
                let status = writeFailureStatus(error.errno)
                let failure = DBToolError(
                    status, "can not write the archive \(descriptor.path): \(error.errno)",
                    hint: status == .ioError ? "Free some space, or write the archive elsewhere." : nil, transient: error.errno.isWriteFailure)
                shared.withLock { $0 = failure }
            }
        }
    }
}
