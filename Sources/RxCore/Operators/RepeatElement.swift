extension Observable {
    /// `element`, again and again, each time by its own action on `scheduler`, until the
    /// subscription is disposed (RxSwift's `repeatElement`).
    ///
    /// - Parameters:
    ///   - element: The element to emit forever.
    ///   - scheduler: Where each element is sent. The default, `CurrentThreadScheduler.instance`,
    ///     runs the loop inside `subscribe`, on the subscribing thread, as in RxSwift: there the
    ///     handle `subscribe` returns comes too late to stop it, and only an operator downstream
    ///     that ends the subscription (`take(_:)`, `take(until:)`) does. Use another scheduler to
    ///     stop it by disposing.
    /// - Returns: A cold sequence that never terminates by itself; disposing it cancels the
    ///   pending action.
    /// - Note: Events arrive on `scheduler`, one action at a time. Thread-safe.
    public static func repeatElement(
        _ element: Element,
        scheduler: any ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        let repeated = CapturedElement(element)
        return GenerateObservable(
            initialState: (),
            condition: { _ in true },
            iterate: { _ in () },
            result: { _ in repeated.value },
            scheduler: scheduler
        )
    }
}
