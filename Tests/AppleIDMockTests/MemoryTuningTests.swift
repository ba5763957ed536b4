import CMallocTuning
import Testing

/// The allocator tuning `serve` applies at start (`MemoryTuning` in the CLI calls this C function).
@Suite("Memory tuning")
struct MemoryTuningTests {
    @Test("glibc takes the fixed mmap threshold")
    func threshold() {
        #if canImport(Glibc)
            #expect(apple_id_mock_fix_mmap_threshold(256 * 1024) == 1)
        #endif
    }
}
