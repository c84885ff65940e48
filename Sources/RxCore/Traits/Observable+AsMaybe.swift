extension ObservableType {
    /// Converts to a `Maybe`: the source must emit at most one element, then complete.
    ///
    /// - Returns: A `Maybe` that succeeds with the element when the source completes after one,
    ///   completes empty when the source does, and fails with `RxError.moreThanOneElement`
    ///   (disposing the source) as soon as a second element arrives.
    /// - Note: The outcome arrives on the source's thread. Thread-safe.
    public func asMaybe() -> Maybe<Element> {
        Maybe(unchecked: AsSingleObservable(source: asObservable(), requiresElement: false))
    }
}
