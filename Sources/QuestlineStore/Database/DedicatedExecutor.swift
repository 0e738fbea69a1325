import NIOCore
import NIOPosix

/// A task executor on one NIO event loop's thread, used only for this.
///
/// Each SQLite connection has one (see `ThreadedSQLiteConnection`): a unit of work on the
/// connection moves onto its thread once and runs its statements there, instead of hopping
/// between an event loop and SQLite's thread for each statement. The group-committed writers
/// run on the writer connection's, so their transactions resume at once, not in line behind
/// whole request bodies being decoded on the shared event loops.
final class DedicatedExecutor: TaskExecutor {
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
