import Testing

@testable import AppleIDMock

/// The allocator tuning `serve` applies at start.
@Suite("Memory tuning")
struct MemoryTuningTests {
    @Test("glibc takes the fixed mmap threshold")
    func threshold() {
        #if canImport(Glibc)
            #expect(MemoryTuning.apply())
        #endif
    }
}
