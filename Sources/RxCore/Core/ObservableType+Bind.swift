extension ObservableType {
    /// Subscribes `observers` to this sequence: each receives every event, in the order given
    /// (RxSwift's `bind(to:)`, which is `subscribe` under a name that reads as a binding).
    ///
    /// - Parameter observers: The observers of every element and of the terminal event.
    /// - Returns: The subscription; disposing it stops the events for all of them.
    /// - Note: The observers are called on the thread the events arrive on, one after the other.
    ///   Thread-safe.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable where Observer.Element == Element {
        bind(toAll: observers)
    }

    /// Subscribes `observers` of optional elements to this sequence: each receives every element,
    /// wrapped, and the terminal event.
    ///
    /// - Parameter observers: The observers of every element and of the terminal event.
    /// - Returns: The subscription; disposing it stops the events for all of them.
    /// - Note: The observers are called on the thread the events arrive on, one after the other.
    ///   Thread-safe.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable where Observer.Element == Element? {
        map { Optional($0) }.bind(toAll: observers)
    }

    /// Passes this sequence to `binder` and returns what it returns (RxSwift's custom binder form:
    /// `xs.bind(to: someFunctionTakingTheSequence)`).
    ///
    /// - Parameter binder: Called once, at once, with this sequence.
    /// - Returns: `binder`'s result, typically a subscription.
    public func bind<Result>(to binder: (Self) -> Result) -> Result {
        binder(self)
    }

    /// Passes this sequence, then `curriedArgument`, to `binder` (RxSwift's curried binder form:
    /// `xs.bind(to: Type.method, curriedArgument: argument)`).
    ///
    /// - Parameters:
    ///   - binder: Called once, at once, with this sequence; the function it returns is called
    ///     with `curriedArgument`.
    ///   - curriedArgument: The second argument of the binding.
    /// - Returns: The result of the second call, typically a subscription.
    public func bind<R1, R2>(to binder: (Self) -> (R1) -> R2, curriedArgument: R1) -> R2 {
        binder(self)(curriedArgument)
    }

    /// One subscription whose events go to every one of `observers`, in order.
    private func bind<Observer: ObserverType>(toAll observers: [Observer]) -> Disposable where Observer.Element == Element {
        if observers.count == 1 {
            return asObservable().subscribe(observers[0])
        }
        return asObservable().subscribe(FanOutObserverNode(targets: observers.map { AnyObserver($0).node }))
    }
}

/// Sends each event to several observers, in order.
// @unchecked Sendable: immutable; the targets are nodes, Sendable by their own invariant, and
// events arrive serialized per the grammar.
final class FanOutObserverNode<Element>: ObserverNode<Element>, @unchecked Sendable {
    private let targets: [ObserverNode<Element>]

    init(targets: [ObserverNode<Element>]) {
        self.targets = targets
    }

    override func onNext(_ element: Element) {
        for target in targets {
            target.onNext(element)
        }
    }

    override func onError(_ error: Error) {
        for target in targets {
            target.onError(error)
        }
    }

    override func onCompleted() {
        for target in targets {
            target.onCompleted()
        }
    }
}
