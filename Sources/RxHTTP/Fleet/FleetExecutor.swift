import Foundation

/// Where every fleet operation runs: Dispatch threads of the fleet's own, not Swift's shared
/// cooperative pool.
///
/// A `FleetCredentialStore`'s synchronous `load()`, `save(_:)` and `clear()` wait on their thread
/// for an async engine operation, and the authenticator calls them wherever a request happens to be
/// (often a thread of the shared pool, after a quota lease resumed it). On a 2-core machine that
/// pool has two threads: two such waits blocked both, and the operations they waited for had no
/// thread left to run on (a replica deadlocked for good). Operations on this executor never need a
/// pool thread, so a blocked caller is only ever waiting for the engine, within its time-out.
final class FleetExecutor: TaskExecutor {
    /// The one executor of the process's fleets.
    static let shared = FleetExecutor()

    /// Concurrent: an operation that blocks (a file lock polled, a slow statement) never holds up
    /// the others; Dispatch bounds its threads.
    private let queue = DispatchQueue(label: "RxHTTP.Fleet.executor", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async {
            job.runSynchronously(on: executor)
        }
    }
}
