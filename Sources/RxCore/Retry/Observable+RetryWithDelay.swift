import Dispatch

extension ObservableType {
    /// Resubscribes after an error, waiting per `delay` — or less, if the network comes back first.
    ///
    /// `maxAttemptCount` counts every subscription, the first included: `retry(3, ...)` subscribes at
    /// most three times. After a failure that `shouldRetry` accepts, exactly one new attempt starts,
    /// when the delay elapses or `didBecomeReachable` emits, whichever comes first; the other is
    /// then ignored. `didBecomeReachable` is subscribed only while waiting, so a signal while an
    /// attempt is running restarts nothing (and a shared `Reachability` probes only while someone
    /// waits). A zero delay retries at once, without a scheduler hop.
    ///
    /// - Parameters:
    ///   - maxAttemptCount: The most subscriptions in all; at least 1.
    ///   - delay: The wait before retry number n is `delay.make(n)` seconds.
    ///   - scheduler: Runs the delay timers. Defaults to a background queue, never the main one
    ///     (a daemon's main queue may never run).
    ///   - didBecomeReachable: Emits when the network comes back; `.never()` to wait for timers only.
    ///   - shouldRetry: Whether an error is worth another attempt; the error is passed on otherwise.
    ///   - onRetry: Told about each retry just before it subscribes again: the attempt number, the
    ///     error, the planned delay and whether the timer or `didBecomeReachable` ended the wait.
    ///     Runs on the thread that ended the wait.
    /// - Returns: The source's elements across attempts; the last error, unchanged, if every attempt
    ///   failed or `shouldRetry` refused.
    /// - Note: Disposing while waiting cancels the timer and the reachability subscription.
    ///   Thread-safe: the timer and the reachability signal may fire on any thread. Over an
    ///   `HTTPClient` that retries itself, pass `shouldRetry: { $0.isTransient }` (or
    ///   `isRetryable`): errors the client's own policy already judged are then passed on instead of
    ///   multiplying its attempts.
    public func retry(
        _ maxAttemptCount: Int = .max,
        delay: DelayOptions,
        scheduler: SchedulerType = ConcurrentDispatchQueueScheduler.background,
        didBecomeReachable: Observable<Void> = .never(),
        shouldRetry: @escaping @Sendable (Error) -> Bool = { _ in true },
        onRetry: (@Sendable (RetryNotification<Error>) -> Void)? = nil
    ) -> Observable<Element> {
        retry(
            maxAttemptCount,
            delayFor: { retryNumber, _ in delay.make(retryNumber) },
            scheduler: scheduler,
            didBecomeReachable: didBecomeReachable,
            shouldRetry: shouldRetry,
            onRetry: onRetry
        )
    }

    /// The same retry, with a delay that may depend on the error (an HTTP `Retry-After`, say):
    /// `delayFor(retryNumber, error)` gives the seconds to wait before retry number `retryNumber`.
    package func retry(
        _ maxAttemptCount: Int,
        delayFor: @escaping @Sendable (Int, Error) -> Double,
        scheduler: SchedulerType,
        didBecomeReachable: Observable<Void>,
        shouldRetry: @escaping @Sendable (Error) -> Bool,
        onRetry: (@Sendable (RetryNotification<Error>) -> Void)? = nil
    ) -> Observable<Element> {
        RetryWithDelayObservable(
            source: asObservable(),
            policy: RetryWithDelayPolicy(
                maxAttemptCount: max(1, maxAttemptCount),
                delayFor: delayFor,
                scheduler: scheduler,
                didBecomeReachable: didBecomeReachable,
                shouldRetry: shouldRetry,
                onRetry: onRetry
            )
        )
    }
}

struct RetryWithDelayPolicy {
    let maxAttemptCount: Int
    /// Seconds before retry number n (1-based), given the error that ended the attempt.
    let delayFor: @Sendable (Int, Error) -> Double
    let scheduler: SchedulerType
    let didBecomeReachable: Observable<Void>
    let shouldRetry: @Sendable (Error) -> Bool
    let onRetry: (@Sendable (RetryNotification<Error>) -> Void)?
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class RetryWithDelayObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let policy: RetryWithDelayPolicy

    init(source: Observable<Element>, policy: RetryWithDelayPolicy) {
        self.source = source
        self.policy = policy
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = RetryWithDelaySink(source: source, policy: policy, downstream: observer)
        sink.start()
        return sink
    }
}
