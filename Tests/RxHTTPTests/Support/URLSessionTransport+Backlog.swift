import Foundation
@testable import RxHTTP

extension URLSessionTransport {
    /// Blocks the delegate queue, as a throttled disk would block a reader, until more chunks wait
    /// behind it than a stream with the default options may hold (at most 3 s), then 50 ms more so
    /// that the exchange's own look finds them. Returns at once; the block runs on the queue.
    func blockDelegateQueueUntilPastTheBacklogBound() {
        let queue = delegateQueue
        queue.addOperation {
            let end = Date().addingTimeInterval(3)
            while queue.operationCount <= URLSessionExchange.maxPendingCallbacks(for: .standard), Date() < end {
                Thread.sleep(forTimeInterval: 0.005)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
