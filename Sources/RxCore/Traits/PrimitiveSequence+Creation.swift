extension PrimitiveSequence {
    /// A sequence that fails at once with `error`.
    ///
    /// - Parameter error: The failure.
    /// - Returns: A sequence delivering `error` on the subscribing thread, during `subscribe`.
    public static func error(_ error: Swift.Error) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: Observable.error(error))
    }

    /// A sequence that never delivers its event (until disposed).
    ///
    /// - Returns: A sequence that delivers nothing.
    public static func never() -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: Observable.never())
    }

    /// A sequence built anew, by `factory`, for each subscription.
    ///
    /// - Parameter factory: Makes the sequence to subscribe to; an error it throws fails the
    ///   subscription with it.
    /// - Returns: A sequence that defers all work, `factory` included, to subscription time.
    /// - Note: `factory` runs on the subscribing thread, once per subscription.
    public static func deferred(
        _ factory: @escaping @Sendable () throws -> PrimitiveSequence<Trait, Element>
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: Observable.deferred { try factory().source })
    }
}

extension PrimitiveSequence {
    /// A sequence that holds a resource for as long as its subscription lasts, as `Observable.using`.
    ///
    /// - Parameters:
    ///   - resourceFactory: Makes the resource, once per subscription; an error it throws fails the
    ///     subscription (there is then nothing to dispose).
    ///   - primitiveSequenceFactory: Builds the sequence from the resource; an error it throws fails
    ///     the subscription, and the resource is disposed right after.
    /// - Returns: A cold sequence of the same trait with the built one's outcome; the resource is
    ///   disposed when the subscription ends (after the outcome or on dispose), exactly once.
    /// - Note: Both factories run on the subscribing thread. Thread-safe if they are.
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping @Sendable () throws -> Resource,
        primitiveSequenceFactory: @escaping @Sendable (Resource) throws -> PrimitiveSequence<Trait, Element>
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: Observable.using(resourceFactory) { try primitiveSequenceFactory($0).source })
    }
}

extension PrimitiveSequence where Trait: ElementTrait {
    /// A `Single` or `Maybe` that succeeds at once with `element`.
    ///
    /// - Parameter element: The element.
    /// - Returns: A sequence delivering `element` on the subscribing thread, during `subscribe`.
    public static func just(_ element: Element) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: Observable.just(element))
    }

    /// A `Single` or `Maybe` that succeeds with `element`, delivered on `scheduler`.
    ///
    /// - Parameters:
    ///   - element: The element.
    ///   - scheduler: Where the element is delivered (then completion, for the `Observable` view).
    /// - Returns: A cold sequence; disposing it before the scheduler ran cancels the delivery.
    /// - Note: Thread-safe.
    public static func just(_ element: Element, scheduler: any ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: Observable.just(element, scheduler: scheduler))
    }
}

extension PrimitiveSequence where Trait: ElementTrait, Element: FixedWidthInteger & SendableMetatype {
    /// A `Single` or `Maybe` that succeeds with `0` after `dueTime`.
    ///
    /// - Parameters:
    ///   - dueTime: The wait (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required.
    /// - Returns: A cold sequence; disposing it cancels the timer.
    /// - Note: The element arrives on `scheduler`. Thread-safe.
    public static func timer(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: Observable<Element>.timer(dueTime, scheduler: scheduler))
    }
}
