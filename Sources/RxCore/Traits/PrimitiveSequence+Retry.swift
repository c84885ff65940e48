extension PrimitiveSequence {
    /// Subscribes again each time this sequence fails, until it succeeds (or completes).
    ///
    /// - Returns: The first attempt that does not fail; it never fails.
    /// - Note: A synchronous failure is retried in a loop, in constant stack depth, without end.
    ///   See `Observable.retry()`.
    public func retry() -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.retry())
    }

    /// Subscribes again when this sequence fails, up to `maxAttemptCount` subscriptions in all (the
    /// first included; `retry(1)` never retries).
    ///
    /// - Parameter maxAttemptCount: The most subscriptions to make. `0` makes none: a `Maybe` or a
    ///   `Completable` then completes at once, a `Single` fails with `RxError.noElements`. A
    ///   negative count fails with `RxError.argumentOutOfRange`.
    /// - Returns: The first attempt that does not fail, or the last attempt's error, unchanged.
    /// - Note: Each attempt is subscribed on the thread the previous one failed on. See
    ///   `Observable.retry(_:)`.
    public func retry(_ maxAttemptCount: Int) -> PrimitiveSequence<Trait, Element> {
        // Only a count of zero can complete without an element.
        maxAttemptCount == 0
            ? PrimitiveSequence(completingMaybeEmpty: .empty())
            : PrimitiveSequence(unchecked: source.retry(maxAttemptCount))
    }

    /// Subscribes again each time the trigger built by `notificationHandler` emits after a failure.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of typed errors; its
    ///   error fails the result; its completion completes a `Maybe` or a `Completable`, and fails a
    ///   `Single` with `RxError.noElements` (a `Single` cannot complete without an element), also
    ///   when seen through `asObservable()`.
    /// - Returns: The first attempt that does not fail.
    /// - Note: Thread-safe, in constant stack depth; see `Observable.retry(when:)`.
    public func retry<Trigger: ObservableType & SendableMetatype, Failure: Swift.Error>(
        when notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(completingMaybeEmpty: source.retry(when: notificationHandler))
    }

    /// Subscribes again each time the trigger built by `notificationHandler` emits after a failure;
    /// see the typed variant.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: The first attempt that does not fail.
    /// - Note: Thread-safe; see `Observable.retry(when:)`.
    public func retry<Trigger: ObservableType & SendableMetatype>(
        when notificationHandler: @escaping @Sendable (Observable<Swift.Error>) -> Trigger
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(completingMaybeEmpty: source.retry(when: notificationHandler))
    }

    /// The older spelling of `retry(when:)`, with typed errors.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of typed errors.
    /// - Returns: The first attempt that does not fail.
    public func retryWhen<Trigger: ObservableType & SendableMetatype, Failure: Swift.Error>(
        _ notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> PrimitiveSequence<Trait, Element> {
        retry(when: notificationHandler)
    }

    /// The older spelling of `retry(when:)`.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: The first attempt that does not fail.
    public func retryWhen<Trigger: ObservableType & SendableMetatype>(
        _ notificationHandler: @escaping @Sendable (Observable<Swift.Error>) -> Trigger
    ) -> PrimitiveSequence<Trait, Element> {
        retry(when: notificationHandler)
    }

    /// Retries after a failure with a delay between attempts; see
    /// `ObservableType.retry(_:delay:scheduler:didBecomeReachable:shouldRetry:onRetry:)`.
    ///
    /// - Returns: The first attempt that does not fail, or the last error.
    public func retry(
        _ maxAttemptCount: Int = .max,
        delay: DelayOptions,
        scheduler: SchedulerType = ConcurrentDispatchQueueScheduler.background,
        didBecomeReachable: Observable<Void> = .never(),
        shouldRetry: @escaping @Sendable (Swift.Error) -> Bool = { _ in true },
        onRetry: (@Sendable (RetryNotification<Swift.Error>) -> Void)? = nil
    ) -> PrimitiveSequence<Trait, Element> {
        // At least one attempt is made, so the result completes empty only if the source does.
        PrimitiveSequence(unchecked: source.retry(
            maxAttemptCount,
            delay: delay,
            scheduler: scheduler,
            didBecomeReachable: didBecomeReachable,
            shouldRetry: shouldRetry,
            onRetry: onRetry
        ))
    }
}
