extension Maybe {
    /// A `Maybe` that succeeds at once with `element`.
    ///
    /// - Parameter element: The element.
    /// - Returns: A `Maybe` delivering `element` on the subscribing thread, during `subscribe`.
    public static func just(_ element: Element) -> Maybe<Element> {
        Maybe(unchecked: Observable.just(element))
    }

    /// A `Maybe` that fails at once with `error`.
    ///
    /// - Parameter error: The failure.
    /// - Returns: A `Maybe` delivering `error` on the subscribing thread, during `subscribe`.
    public static func error(_ error: Swift.Error) -> Maybe<Element> {
        Maybe(unchecked: Observable.error(error))
    }

    /// A `Maybe` that completes at once without an element.
    ///
    /// - Returns: A `Maybe` completing on the subscribing thread, during `subscribe`.
    public static func empty() -> Maybe<Element> {
        Maybe(unchecked: Observable.empty())
    }

    /// A `Maybe` that never terminates (until disposed).
    ///
    /// - Returns: A `Maybe` that delivers nothing.
    public static func never() -> Maybe<Element> {
        Maybe(unchecked: Observable.never())
    }
}
