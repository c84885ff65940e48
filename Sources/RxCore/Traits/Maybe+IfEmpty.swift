extension Maybe {
    /// Succeeds with `default` when this `Maybe` completes without an element.
    ///
    /// - Parameter default: The element delivered in place of an empty completion.
    /// - Returns: A `Single` of this `Maybe`'s element, or of `default`; errors pass through.
    /// - Note: The result arrives on this `Maybe`'s thread. Thread-safe.
    public func ifEmpty(default: Element) -> Single<Element> {
        // `first()` yields `Optional(element)`, or `nil` for an empty completion; `??` on the
        // doubly optional value keeps a `nil` element of an optional `Element` as it is.
        let fallback = CapturedElement(`default`)
        return Single(unchecked: source.first().asObservable().map { $0 ?? fallback.value })
    }

    /// Continues with `other` when this `Maybe` completes without an element.
    ///
    /// - Parameter other: Subscribed only after an empty completion.
    /// - Returns: A `Maybe` of this one's element, or of `other`'s outcome.
    /// - Note: `other`'s outcome arrives on its own thread. Disposing disposes whichever is
    ///   subscribed. Thread-safe.
    public func ifEmpty(switchTo other: Maybe<Element>) -> Maybe<Element> {
        Maybe(unchecked: switchingIfEmpty(to: other.source))
    }

    /// Continues with `other` when this `Maybe` completes without an element.
    ///
    /// - Parameter other: Subscribed only after an empty completion.
    /// - Returns: A `Single` of this `Maybe`'s element, or of `other`'s outcome.
    /// - Note: `other`'s outcome arrives on its own thread. Disposing disposes whichever is
    ///   subscribed. Thread-safe.
    public func ifEmpty(switchTo other: Single<Element>) -> Single<Element> {
        Single(unchecked: switchingIfEmpty(to: other.asObservable()))
    }

    /// This `Maybe`'s element, or `other`'s events after an empty completion.
    private func switchingIfEmpty(to other: Observable<Element>) -> Observable<Element> {
        source.first().flatMapObservable { element in
            element.map { Observable.just($0) } ?? other
        }
    }
}
