import DatabaseKit

/// Writes the pages of a database file being built (``LTXApplier``), handed
/// over in runs of consecutive pages (up to 1 MiB). Once a file fills a run,
/// the runs go to a thread of its own, so that copying them into the page
/// cache overlaps decompressing and checksumming the next pages, as
/// ``BackgroundWriter`` does for archives; a file of a few pages is written
/// inline and starts no thread. Memory: three runs.
///
/// Each page is its own `pwrite`, as SQLite writes them: a larger write
/// leaves the page cache holding the file in folios of that size, and a
/// later write of one page into such a folio (a follower's update, the
/// application's commit) dirties, and is accounted as, the whole folio.
///
/// A write error is kept, thrown by the next ``add(_:number:)`` or by
/// ``finish()``. Every run is on the file once ``finish()`` returns; the
/// caller resizes the file only then.
final class PageRunWriter {
    private let ring: Ring
    private let pageSize: Int
    /// The run being filled: in `ring.buffers[slot]`, from page `first`.
    private var slot = 0
    private var first: UInt32 = 0
    private var count = 0
    private var isThreaded = false
    private var isFinished = false

    /// A writer of pages of `pageSize` bytes (at most 1 MiB) into `descriptor`
    /// (not closed by the writer).
    init(descriptor: FileDescriptor, pageSize: Int) {
        ring = Ring(descriptor: descriptor, pageSize: pageSize)
        self.pageSize = pageSize
    }

    deinit {
        _ = try? finish()
    }

    /// Queues page `number` (its bytes copied) to be written at its place.
    func add(_ page: UnsafeRawBufferPointer, number: UInt32) throws(FileSystemError) {
        if count > 0 && (UInt64(number) != UInt64(first) + UInt64(count) || (count + 1) * pageSize > StreamBuffer.size) {
            try endRun()
        }
        if count == 0 {
            // A thread may still be writing this buffer from three runs ago.
            if isThreaded { ring.free.wait() }
            first = number
        }
        UnsafeMutableRawBufferPointer(start: ring.buffers[slot] + count * pageSize, count: pageSize).copyMemory(from: page)
        count += 1
    }

    /// Writes what is queued, waits until it is on the file, and throws the
    /// first write error, if any.
    func finish() throws(FileSystemError) {
        guard !isFinished else { return }
        isFinished = true
        var failure: FileSystemError?
        if count > 0 {
            do { try endRun() } catch { failure = error }
        }
        if isThreaded {
            // Even after a failure: the thread must see the end and stop.
            ring.free.wait()
            ring.counts[slot] = 0  // the end of the stream
            ring.filled.signal()
            ring.finished.wait()
            failure = failure ?? ring.shared.withLock { $0 }
        }
        if let failure { throw failure }
    }

    /// Writes the run being filled: inline while the file is small, on the
    /// thread once one run filled.
    private func endRun() throws(FileSystemError) {
        let bytes = count * pageSize
        let offset = Int64(first - 1) * Int64(pageSize)
        count = 0
        if !isThreaded && bytes + pageSize <= StreamBuffer.size {
            try ring.writePages(slot: slot, count: bytes, at: offset)
            return
        }
        if !isThreaded {
            isThreaded = true
            WorkerThreads.start(name: "page-writer") { [ring] _ in ring.drain() }
            ring.free.wait()  // the buffer filled inline, now handed over
        }
        ring.counts[slot] = bytes
        ring.offsets[slot] = offset
        ring.filled.signal()
        slot = (slot + 1) % Ring.slots
        if let error = ring.shared.withLock({ $0 }) { throw error }
    }

    /// What the two threads share: the ring of runs with their offsets, and
    /// the first write error (``BufferRing/shared``, under its lock).
    private final class Ring: BufferRing<FileSystemError?>, @unchecked Sendable {
        let descriptor: FileDescriptor
        let pageSize: Int
        /// The file offset of each buffer's run.
        let offsets: UnsafeMutablePointer<Int64>

        init(descriptor: FileDescriptor, pageSize: Int) {
            self.descriptor = descriptor
            self.pageSize = pageSize
            offsets = .allocate(capacity: Self.slots)
            offsets.initialize(repeating: 0, count: Self.slots)
            super.init(shared: nil)
        }

        deinit {
            offsets.deallocate()
        }

        /// The writing thread: writes each run until the end marker; after
        /// an error, only drains.
        func drain() {
            consumeUntilEnd { slot, count in
                guard shared.withLock({ $0 == nil }) else { return }
                do throws(FileSystemError) {
                    try writePages(slot: slot, count: count, at: offsets[slot])
                } catch {
                    shared.withLock { $0 = error }
                }
            }
        }

        /// Writes the run in buffer `slot`, `count` bytes, at `offset`, one
        /// page at a time.
        func writePages(slot: Int, count: Int, at offset: Int64) throws(FileSystemError) {
            var written = 0
            while written < count {
                let page = UnsafeRawBufferPointer(start: buffers[slot] + written, count: pageSize)
                try descriptor.writeAll(toAbsoluteOffset: offset + Int64(written), page)
                written += pageSize
            }
        }
    }
}
