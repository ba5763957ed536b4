import Hummingbird
import Synchronization
import Testing

@testable import AppleIDMock

/// An image not drawn yet is drawn once however many requests ask for it at the same time, and a
/// failed drawing reaches every request that waited for it.
@Suite("Button images drawn once")
struct DrawnButtonImagesTests {
    /// A drawing that counts its runs and holds each until the test lets it finish.
    final class HeldDrawing: Sendable {
        let runs = Mutex(0)
        let release: AsyncStream<Result<BundledAsset, DrawingFailed>>.Continuation
        private let releases: AsyncStream<Result<BundledAsset, DrawingFailed>>

        init() {
            (releases, release) = AsyncStream.makeStream()
        }

        @Sendable func draw(_ asked: ButtonImageRequest) async throws -> BundledAsset {
            runs.withLock { $0 += 1 }
            for await outcome in releases { return try outcome.get() }
            throw CancellationError()
        }
    }

    /// The error a held drawing ends with when told to fail.
    struct DrawingFailed: Error {}

    static let asset = BundledAsset(body: ByteBuffer(string: "png"), contentType: "image/png", etag: "\"e\"")

    /// Asks `images` for `asked` `count` times at once; lets the drawing end with `outcome` once all
    /// but the first wait for it.
    static func ask(
        _ images: DrawnButtonImages, _ drawing: HeldDrawing, _ asked: ButtonImageRequest, count: Int,
        ending outcome: Result<BundledAsset, DrawingFailed>
    ) async throws -> [Result<BundledAsset, any Error>] {
        try await withThrowingTaskGroup(of: Result<BundledAsset, any Error>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do { return .success(try await images.image(for: asked)) } catch { return .failure(error) }
                }
            }
            let queued = try await Waiting.until(seconds: 10, every: .zero) {
                await images.waiting(for: asked) == count - 1
            }
            let waiting = await images.waiting(for: asked)
            #expect(queued, "\(waiting) of \(count - 1) requests wait")
            drawing.release.yield(outcome)
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("32 requests at once for an image not drawn yet: one drawing, the same image for all, cached after")
    func drawnOnce() async throws {
        let drawing = HeldDrawing()
        let images = DrawnButtonImages(draw: drawing.draw)
        let asked = try ButtonImageRequest.read(.centred, [("width", "200")])
        let answers = try await Self.ask(images, drawing, asked, count: 32, ending: .success(Self.asset))
        #expect(drawing.runs.withLock { $0 } == 1)
        #expect(answers.count == 32)
        #expect(answers.allSatisfy { (try? $0.get())?.etag == "\"e\"" })
        _ = try await images.image(for: asked)
        #expect(drawing.runs.withLock { $0 } == 1, "cached")
    }

    @Test("a drawing that fails fails every request that waited for it, and the next request draws again")
    func failureReachesAll() async throws {
        let drawing = HeldDrawing()
        let images = DrawnButtonImages(draw: drawing.draw)
        let asked = try ButtonImageRequest.read(.logo, [])
        let answers = try await Self.ask(images, drawing, asked, count: 8, ending: .failure(DrawingFailed()))
        #expect(answers.allSatisfy { if case .failure(let error) = $0 { error is DrawingFailed } else { false } })
        #expect(drawing.runs.withLock { $0 } == 1)
        drawing.release.yield(.success(Self.asset))
        #expect(try await images.image(for: asked).etag == "\"e\"")
        #expect(drawing.runs.withLock { $0 } == 2)
    }
}

/// The one-at-a-time rule under cancellation.
@Suite("Single flight")
struct SingleFlightTests {
    @Test("a cancelled runner's waiters run the work again instead of taking its cancellation")
    func cancelledRunner() async throws {
        let flight = SingleFlight<String, Int>()
        let started = Mutex(false)
        let runner = Task {
            try await flight.run("k") {
                started.withLock { $0 = true }
                // Held until cancelled.
                try await Task.sleep(for: .seconds(3600))
                return 0
            }
        }
        #expect(try await Waiting.until(seconds: 10, every: .zero) { started.withLock { $0 } })
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 { group.addTask { try await flight.run("k") { 7 } } }
            #expect(try await Waiting.until(seconds: 10, every: .zero) { await flight.waiters(for: "k") == 3 })
            runner.cancel()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers == [7, 7, 7])
        await #expect(throws: CancellationError.self) { try await runner.value }
    }
}
