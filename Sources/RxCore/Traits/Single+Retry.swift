extension Single {
    /// Subscribes again each time this `Single` fails, until it succeeds.
    ///
    /// - Returns: A `Single` of the first success; it never fails.
    /// - Note: A synchronous failure is retried in a loop, in constant stack depth, without end.
    ///   See `Observable.retry()`.
    public func retry() -> Single<Element> {
        Single(unchecked: source.retry())
    }

    /// Subscribes again when this `Single` fails, up to `maxAttemptCount` subscriptions in all (the
    /// first included; `retry(1)` never retries).
    ///
    /// - Parameter maxAttemptCount: The most subscriptions to make. `0` makes none and fails with
    ///   `RxError.noElements`; a negative count fails with `RxError.argumentOutOfRange`.
    /// - Returns: A `Single` of the first success, or the last attempt's error, unchanged.
    /// - Note: See `Observable.retry(_:)`.
    public func retry(_ maxAttemptCount: Int) -> Single<Element> {
        if maxAttemptCount == 0 {
            return .error(RxError.noElements)
        }
        return Single(unchecked: source.retry(maxAttemptCount))
    }

    /// Subscribes again each time the trigger built by `notificationHandler` emits after a failure.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors; its error
    ///   fails the `Single`; its completion fails it with `RxError.noElements` (a `Single` cannot
    ///   complete without an element), also when seen through `asObservable()`.
    /// - Returns: A `Single` of the first success.
    /// - Note: Thread-safe, in constant stack depth; see `Observable.retry(when:)`.
    public func retry<Trigger: ObservableType & SendableMetatype, Failure: Error>(
        when notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> Single<Element> {
        source.retry(when: notificationHandler).asSingle()
    }

    /// Subscribes again each time the trigger built by `notificationHandler` emits after a failure;
    /// see the typed variant.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: A `Single` of the first success.
    public func retry<Trigger: ObservableType & SendableMetatype>(
        when notificationHandler: @escaping @Sendable (Observable<Error>) -> Trigger
    ) -> Single<Element> {
        source.retry(when: notificationHandler).asSingle()
    }

    /// The older spelling of `retry(when:)`.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: A `Single` of the first success.
    public func retryWhen<Trigger: ObservableType & SendableMetatype>(
        _ notificationHandler: @escaping @Sendable (Observable<Error>) -> Trigger
    ) -> Single<Element> {
        source.retry(when: notificationHandler).asSingle()
    }
}
