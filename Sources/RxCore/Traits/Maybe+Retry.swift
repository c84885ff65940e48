extension Maybe {
    /// Subscribes again each time this `Maybe` fails, until it succeeds or completes.
    ///
    /// - Returns: A `Maybe` of the first attempt that does not fail; it never fails.
    /// - Note: A synchronous failure is retried in a loop, in constant stack depth, without end.
    ///   See `Observable.retry()`.
    public func retry() -> Maybe<Element> {
        Maybe(unchecked: source.retry())
    }

    /// Subscribes again when this `Maybe` fails, up to `maxAttemptCount` subscriptions in all (the
    /// first included; `retry(1)` never retries).
    ///
    /// - Parameter maxAttemptCount: The most subscriptions to make. `0` makes none and completes
    ///   empty at once; a negative count fails with `RxError.argumentOutOfRange`.
    /// - Returns: A `Maybe` of the first attempt that does not fail, or the last attempt's error,
    ///   unchanged.
    /// - Note: Each attempt is subscribed on the thread the previous one failed on. See
    ///   `Observable.retry(_:)`.
    public func retry(_ maxAttemptCount: Int) -> Maybe<Element> {
        Maybe(unchecked: source.retry(maxAttemptCount))
    }

    /// Subscribes again each time the trigger built by `notificationHandler` emits after a failure.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of typed errors; its
    ///   error fails the `Maybe`, its completion completes it empty.
    /// - Returns: A `Maybe` of the first attempt that does not fail.
    /// - Note: Thread-safe, in constant stack depth; see `Observable.retry(when:)`.
    public func retry<Trigger: ObservableType & SendableMetatype, Failure: Swift.Error>(
        when notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> Maybe<Element> {
        Maybe(unchecked: source.retry(when: notificationHandler))
    }

    /// Subscribes again each time the trigger built by `notificationHandler` emits after a failure;
    /// see the typed variant.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: A `Maybe` of the first attempt that does not fail.
    /// - Note: Thread-safe; see `Observable.retry(when:)`.
    public func retry<Trigger: ObservableType & SendableMetatype>(
        when notificationHandler: @escaping @Sendable (Observable<Swift.Error>) -> Trigger
    ) -> Maybe<Element> {
        Maybe(unchecked: source.retry(when: notificationHandler))
    }

    /// The older spelling of `retry(when:)`, with typed errors.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of typed errors.
    /// - Returns: A `Maybe` of the first attempt that does not fail.
    /// - Note: Thread-safe; see `Observable.retry(when:)`.
    public func retryWhen<Trigger: ObservableType & SendableMetatype, Failure: Swift.Error>(
        _ notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> Maybe<Element> {
        retry(when: notificationHandler)
    }

    /// The older spelling of `retry(when:)`.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: A `Maybe` of the first attempt that does not fail.
    /// - Note: Thread-safe; see `Observable.retry(when:)`.
    public func retryWhen<Trigger: ObservableType & SendableMetatype>(
        _ notificationHandler: @escaping @Sendable (Observable<Swift.Error>) -> Trigger
    ) -> Maybe<Element> {
        retry(when: notificationHandler)
    }
}
