import NIOCore
import NIOPosix

/// A task executor on a thread of its own (one NIO event loop, used only for this).
///
/// The group-committed writer runs here: its transaction is a chain of short steps (BEGIN, the
/// inserts, the summary, COMMIT), each resuming after SQLite's thread answers. On the shared
/// event loops every resumption waited in line behind whole request bodies being decoded, and
/// the single writer's turn grew with the load; here it resumes at once.
final class DedicatedExecutor: TaskExecutor {
    private let loop: any EventLoop

    /// The executor the group-committed writers share (created on first use; its thread lives
    /// as long as the process, like NIO's own singleton loops).
    static let writer = DedicatedExecutor()

    private init() {
        loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
