extension Completable {
    /// Subscribes again each time this `Completable` fails, until it completes.
    ///
    /// - Returns: A `Completable` that completes with the first attempt that does; it never fails.
    /// - Note: A synchronous failure is retried in a loop, in constant stack depth, without end.
    ///   See `Observable.retry()`.
    public func retry() -> Completable {
        Completable(unchecked: source.retry())
    }

    /// Subscribes again when this `Completable` fails, up to `maxAttemptCount` subscriptions in all
    /// (the first included; `retry(1)` never retries).
    ///
    /// - Parameter maxAttemptCount: The most subscriptions to make. `0` makes none and completes at
    ///   once; a negative count fails with `RxError.argumentOutOfRange`.
    /// - Returns: A `Completable` that completes with the first attempt that does, or fails with the
    ///   last attempt's error, unchanged.
    /// - Note: Each attempt is subscribed on the thread the previous one failed on. See
    ///   `Observable.retry(_:)`.
    public func retry(_ maxAttemptCount: Int) -> Completable {
        Completable(unchecked: source.retry(maxAttemptCount))
    }

    /// Subscribes again each time the trigger built by `notificationHandler` emits after a failure.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of typed errors; its
    ///   error fails the `Completable`, its completion completes it.
    /// - Returns: A `Completable` that completes with the first attempt that does.
    /// - Note: Thread-safe, in constant stack depth; see `Observable.retry(when:)`.
    public func retry<Trigger: ObservableType & SendableMetatype, Failure: Swift.Error>(
        when notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> Completable {
        Completable(unchecked: source.retry(when: notificationHandler))
    }

    /// Subscribes again each time the trigger built by `notificationHandler` emits after a failure;
    /// see the typed variant.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: A `Completable` that completes with the first attempt that does.
    /// - Note: Thread-safe; see `Observable.retry(when:)`.
    public func retry<Trigger: ObservableType & SendableMetatype>(
        when notificationHandler: @escaping @Sendable (Observable<Swift.Error>) -> Trigger
    ) -> Completable {
        Completable(unchecked: source.retry(when: notificationHandler))
    }

    /// The older spelling of `retry(when:)`, with typed errors.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of typed errors.
    /// - Returns: A `Completable` that completes with the first attempt that does.
    /// - Note: Thread-safe; see `Observable.retry(when:)`.
    public func retryWhen<Trigger: ObservableType & SendableMetatype, Failure: Swift.Error>(
        _ notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> Completable {
        retry(when: notificationHandler)
    }

    /// The older spelling of `retry(when:)`.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: A `Completable` that completes with the first attempt that does.
    /// - Note: Thread-safe; see `Observable.retry(when:)`.
    public func retryWhen<Trigger: ObservableType & SendableMetatype>(
        _ notificationHandler: @escaping @Sendable (Observable<Swift.Error>) -> Trigger
    ) -> Completable {
        retry(when: notificationHandler)
    }
}
