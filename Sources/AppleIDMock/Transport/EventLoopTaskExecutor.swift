import NIOCore

/// A Swift task executor that runs jobs on one NIO event loop.
///
/// A task that prefers it runs its nonisolated async code on that loop's thread instead of the
/// cooperative pool: a request read on the loop is handled and answered there, without a wake-up
/// of another thread on the way in and on the way out.
final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop that runs every job.
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
