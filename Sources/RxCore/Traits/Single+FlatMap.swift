extension Single {
    /// Chains a `Single` that depends on this one's element.
    ///
    /// - Parameter selector: Returns the next `Single` for the element; an error it throws becomes
    ///   the failure.
    /// - Returns: A `Single` with the element of the chained one; it fails if this one, the selector
    ///   or the chained one fails.
    /// - Note: `selector` runs on the thread this `Single` succeeds on; the result arrives on the
    ///   chained `Single`'s thread. Disposing cancels whichever of the two is running.
    public func flatMap<Result>(_ selector: @escaping @Sendable (Element) throws -> Single<Result>) -> Single<Result> {
        Single<Result>(unchecked: FlatMapObservable(source: source, maxConcurrent: .max, dropsWhenBusy: false) {
            try selector($0).source
        })
    }

    /// Continues with a sequence that depends on this one's element.
    ///
    /// - Parameter selector: Returns the sequence for the element; an error it throws terminates
    ///   the result.
    /// - Returns: The elements of that sequence; it fails if this `Single`, the selector or the
    ///   sequence fails.
    /// - Note: `selector` runs on the thread this `Single` succeeds on.
    public func flatMapObservable<Result>(
        _ selector: @escaping @Sendable (Element) throws -> Observable<Result>
    ) -> Observable<Result> {
        FlatMapObservable(source: source, maxConcurrent: .max, dropsWhenBusy: false, selector: selector)
    }

    /// Chains a `Maybe` that depends on this one's element.
    ///
    /// - Parameter selector: Returns the `Maybe` for the element; an error it throws becomes the
    ///   failure.
    /// - Returns: A `Maybe` with the chained one's outcome; it fails if this `Single`, the selector
    ///   or the chained `Maybe` fails.
    /// - Note: `selector` runs on the thread this `Single` succeeds on; the outcome arrives on the
    ///   chained `Maybe`'s thread. Disposing cancels whichever of the two is running.
    public func flatMapMaybe<Result>(_ selector: @escaping @Sendable (Element) throws -> Maybe<Result>) -> Maybe<Result> {
        Maybe<Result>(unchecked: FlatMapObservable(source: source, maxConcurrent: .max, dropsWhenBusy: false) {
            try selector($0).source
        })
    }

    /// Chains a `Completable` that depends on this one's element.
    ///
    /// - Parameter selector: Returns the `Completable` for the element; an error it throws becomes
    ///   the failure.
    /// - Returns: A `Completable` that completes when the chained one does; it fails if this
    ///   `Single`, the selector or the chained `Completable` fails.
    /// - Note: `selector` runs on the thread this `Single` succeeds on; the event arrives on the
    ///   chained `Completable`'s thread. Disposing cancels whichever of the two is running.
    public func flatMapCompletable(_ selector: @escaping @Sendable (Element) throws -> Completable) -> Completable {
        Completable(unchecked: FlatMapObservable(source: source, maxConcurrent: .max, dropsWhenBusy: false) {
            try selector($0).asObservable()
        })
    }
}
