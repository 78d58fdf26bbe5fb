#if canImport(Glibc)
    import Glibc
#endif

/// How the C allocator places large blocks, set once as dbtool starts.
public enum LargeAllocations {
    /// Gives every block of 256 KiB or more (upload parts, read-ahead
    /// chunks) a mapping of its own, unmapped when it is freed.
    ///
    /// glibc otherwise raises its threshold to the size of the first large
    /// block freed, then serves such blocks from the heap of the thread that
    /// asks, where they stay resident once freed: a `replicate` whose two
    /// lanes had each uploaded a large file kept both lanes' buffers for
    /// good (peak RSS 65 MiB with a 100 MB transaction to S3, 49 MiB with
    /// the threshold fixed, which also returns to 38 MiB once it is shipped).
    public static func mapIndividually() {
        #if canImport(Glibc)
            // mallopt is declared in <malloc.h>, which the Glibc module does
            // not import: found by name. M_MMAP_THRESHOLD is -3 in glibc's ABI.
            typealias Mallopt = @convention(c) (CInt, CInt) -> CInt
            guard let symbol = dlsym(nil, "mallopt") else { return }
            _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 256 << 10)
        #endif
    }
}
