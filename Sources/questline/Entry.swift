import NIOCore
import NIOPosix
import QuestlineCLI

@main
struct Entry {
    static func main() async {
        // Swift Concurrency's jobs run on the event loops that serve HTTP (and that the database
        // pools use) instead of hopping to a separate thread pool and back at every await: 10–15%
        // less CPU per request (docs/performance.md). Safe because no code of ours, nor any
        // dependency we call, blocks a thread with `EventLoopFuture.wait()`.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await QuestlineCommand.main(nil)
    }
}
