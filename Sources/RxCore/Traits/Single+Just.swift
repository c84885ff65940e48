extension Single {
    /// A `Single` that succeeds at once with `element`.
    ///
    /// - Parameter element: The success value.
    /// - Returns: A `Single` delivering `element` on the subscribing thread, during `subscribe`.
    public static func just(_ element: Element) -> Single<Element> {
        Single(unchecked: Observable.just(element))
    }

    /// A `Single` that fails at once with `error`.
    ///
    /// - Parameter error: The failure.
    /// - Returns: A `Single` delivering `error` on the subscribing thread, during `subscribe`.
    public static func error(_ error: Error) -> Single<Element> {
        Single(unchecked: Observable.error(error))
    }

    /// A `Single` that never delivers its event (until disposed).
    ///
    /// - Returns: A `Single` that delivers nothing.
    public static func never() -> Single<Element> {
        Single(unchecked: Observable.never())
    }
}
