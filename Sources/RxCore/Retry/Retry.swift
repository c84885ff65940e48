extension ObservableType {
    /// Subscribes to the source again each time it fails, forever.
    ///
    /// - Returns: The elements of every attempt; completes when an attempt completes, never fails.
    /// - Note: Each new attempt is subscribed on the thread the previous one failed on. A source that
    ///   fails synchronously is retried in a loop, not recursively, so the stack does not grow; but
    ///   such a source is retried without end (use `retry(_:)` or `retry(when:)` to bound or pace
    ///   it). Thread-safe.
    public func retry() -> Observable<Element> {
        RetryObservable(source: asObservable(), maxAttemptCount: nil)
    }

    /// Subscribes to the source again when it fails, up to `maxAttemptCount` subscriptions in all.
    ///
    /// `maxAttemptCount` counts every subscription, the first included, as in RxSwift: `retry(1)`
    /// never retries and `retry(3)` makes at most two more attempts after the first one fails.
    ///
    /// - Parameter maxAttemptCount: The most subscriptions to make. `0` completes at once without
    ///   subscribing (as RxSwift does); a negative count fails with `RxError.argumentOutOfRange`.
    /// - Returns: The elements of every attempt; completes when an attempt completes and fails with
    ///   the last attempt's error, unchanged.
    /// - Note: Each new attempt is subscribed on the thread the previous one failed on, immediately
    ///   and in constant stack depth. Thread-safe.
    public func retry(_ maxAttemptCount: Int) -> Observable<Element> {
        if maxAttemptCount < 0 {
            return .error(RxError.argumentOutOfRange)
        }
        if maxAttemptCount == 0 {
            return .empty()
        }
        return RetryObservable(source: asObservable(), maxAttemptCount: maxAttemptCount)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class RetryObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let maxAttemptCount: Int?

    init(source: Observable<Element>, maxAttemptCount: Int?) {
        self.source = source
        self.maxAttemptCount = maxAttemptCount
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = RetrySink(source: source, maxAttemptCount: maxAttemptCount, downstream: observer)
        sink.resubscribe()
        return sink
    }
}

// @unchecked Sendable: `maxAttemptCount` is immutable; the rest is ResubscribingSink's LockedState.
final class RetrySink<Element>: ResubscribingSink<Element>, @unchecked Sendable {
    private let maxAttemptCount: Int?

    init(source: Observable<Element>, maxAttemptCount: Int?, downstream: ObserverNode<Element>) {
        self.maxAttemptCount = maxAttemptCount
        super.init(source: source, downstream: downstream)
    }

    override func attemptFailed(_ error: Error) {
        if let maxAttemptCount, attemptCount >= maxAttemptCount {
            forwardError(error)
        } else {
            resubscribe()
        }
    }
}
