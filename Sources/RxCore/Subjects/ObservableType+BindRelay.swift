extension ObservableType {
    /// Sends every element of this sequence to `relays`, in the order given (RxRelay's
    /// `bind(to:)`).
    ///
    /// A relay cannot terminate: completion is ignored, and an error (a programming error: a
    /// sequence bound to a relay must not fail) goes to `Hooks.defaultErrorHandler`, with the call
    /// stack of this call if `Hooks.recordCallStackOnError` is true. RxSwift stops a DEBUG build
    /// there (`fatalError`); RxCore never traps on it.
    ///
    /// - Parameter relays: The relays that accept every element.
    /// - Returns: The subscription; disposing it stops the elements for all of them.
    /// - Note: `accept(_:)` runs on the thread the elements arrive on, so the sequence must not
    ///   emit concurrently (no Rx sequence does). Thread-safe.
    public func bind(to relays: PublishRelay<Element>...) -> Disposable {
        bindElements { element in relays.forEach { $0.accept(element) } }
    }

    /// Sends every element of this sequence, wrapped, to `relays` of optional elements; see
    /// `bind(to:)` for publish relays.
    ///
    /// - Parameter relays: The relays that accept every element.
    /// - Returns: The subscription; disposing it stops the elements for all of them.
    public func bind(to relays: PublishRelay<Element?>...) -> Disposable {
        bindElements { element in relays.forEach { $0.accept(element) } }
    }

    /// Makes every element of this sequence the value of `relays`, in the order given; completion
    /// is ignored and an error goes to `Hooks.defaultErrorHandler` (see `bind(to:)` for publish
    /// relays).
    ///
    /// - Parameter relays: The relays whose value follows the sequence.
    /// - Returns: The subscription; disposing it stops the elements for all of them.
    public func bind(to relays: BehaviorRelay<Element>...) -> Disposable {
        bindElements { element in relays.forEach { $0.accept(element) } }
    }

    /// Makes every element of this sequence, wrapped, the value of `relays` of optional elements;
    /// see `bind(to:)` for publish relays.
    ///
    /// - Parameter relays: The relays whose value follows the sequence.
    /// - Returns: The subscription; disposing it stops the elements for all of them.
    public func bind(to relays: BehaviorRelay<Element?>...) -> Disposable {
        bindElements { element in relays.forEach { $0.accept(element) } }
    }

    /// Sends every element of this sequence to `relays`, which replay them to later subscribers;
    /// completion is ignored and an error goes to `Hooks.defaultErrorHandler` (see `bind(to:)` for
    /// publish relays).
    ///
    /// - Parameter relays: The relays that accept every element.
    /// - Returns: The subscription; disposing it stops the elements for all of them.
    public func bind(to relays: ReplayRelay<Element>...) -> Disposable {
        bindElements { element in relays.forEach { $0.accept(element) } }
    }

    /// Sends every element of this sequence, wrapped, to `relays` of optional elements; see
    /// `bind(to:)` for publish relays.
    ///
    /// - Parameter relays: The relays that accept every element.
    /// - Returns: The subscription; disposing it stops the elements for all of them.
    public func bind(to relays: ReplayRelay<Element?>...) -> Disposable {
        bindElements { element in relays.forEach { $0.accept(element) } }
    }

    /// Subscribes `accept` to the elements; no completion handler, and no error handler, so that an
    /// error reaches `Hooks.defaultErrorHandler` as for any subscription without one.
    private func bindElements(_ accept: @escaping @Sendable (Element) -> Void) -> Disposable {
        subscribe(onNext: accept)
    }
}
