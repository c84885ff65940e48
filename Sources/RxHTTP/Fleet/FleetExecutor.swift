import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// Where every fleet operation runs: Dispatch threads of the fleet's own, neither Swift's shared
/// cooperative pool nor Dispatch's global pool.
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

    /// Serial queues, each job to one with nothing to do (a new one when every lane has work, up to
    /// `maxLanes`): a job that blocks (a file lock polled, a credential store's `load()` waiting
    /// for another operation of this executor) holds up its own lane only, and the operation it
    /// waits for runs on another. Not a concurrent queue: that one borrows the threads of
    /// Dispatch's global pool, which a daemon's callers may all hold (a credential store's blocking
    /// `load()` from every thread of it deadlocked the replica); a serial queue always gets a thread.
    private struct Lanes {
        var queues: [DispatchQueue] = []
        /// Jobs queued or running on each lane.
        var load: [Int] = []
    }

    /// Past this many lanes, jobs share the least loaded one.
    static let maxLanes = 64

    private let lanes = LockedState.make(Lanes())

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let (index, queue) = lanes.withLock { lanes -> (Int, DispatchQueue) in
            var index = lanes.load.firstIndex(of: 0)
            if index == nil, lanes.queues.count < Self.maxLanes {
                lanes.queues.append(DispatchQueue(label: "RxHTTP.Fleet.executor.\(lanes.queues.count)"))
                lanes.load.append(0)
                index = lanes.queues.count - 1
            }
            let chosen = index ?? lanes.load.indices.min { lanes.load[$0] < lanes.load[$1] } ?? 0
            lanes.load[chosen] += 1
            return (chosen, lanes.queues[chosen])
        }
        queue.async {
            job.runSynchronously(on: executor)
            self.lanes.withLock { $0.load[index] -= 1 }
        }
    }
}
