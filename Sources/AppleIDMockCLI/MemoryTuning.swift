import CMallocTuning

/// How the server asks the C allocator to hand memory back.
enum MemoryTuning {
    /// Allocations of this size and over get pages of their own, returned when freed.
    static let mmapThreshold: Int32 = 256 * 1024

    /// Fixes glibc's threshold for allocations served by their own pages. Left to itself, glibc
    /// raises it (up to 32 MiB) each time such a block is freed, after which the growing tables of
    /// the memory store (slot arrays, indexes, expiry heaps: each growth frees the last buffer) are
    /// carved from the heap, and the buffers they outgrow stay resident as free heap space. Fixed,
    /// an outgrown buffer is returned to the system. No effect where the C library is not glibc.
    /// - Returns: whether the threshold was set (`false` off glibc).
    @discardableResult
    static func apply() -> Bool {
        apple_id_mock_fix_mmap_threshold(mmapThreshold) == 1
    }
}
