extension Observable {
    /// A sequence built anew, by `factory`, for each subscription.
    ///
    /// - Parameter factory: Makes the sequence to subscribe to; an error it throws is delivered to
    ///   the subscriber as `onError`.
    /// - Returns: A cold sequence that defers all work, including `factory`, to subscription time.
    /// - Note: `factory` runs on the subscribing thread, once per subscription. Thread-safe if
    ///   `factory` is.
    public static func deferred(_ factory: @escaping @Sendable () throws -> Observable<Element>) -> Observable<Element> {
        DeferredObservable(factory)
    }
}

extension Observable {
    /// `deferred` for this package's own adapters whose factory captures values that are not
    /// `Sendable`; see `Observable.createCapturingNonSendable`.
    package static func deferredCapturingNonSendable(
        _ factory: @escaping () throws -> Observable<Element>
    ) -> Observable<Element> {
        DeferredObservable(factory)
    }
}

// @unchecked Sendable: immutable after init; `factory` is `@Sendable` where users give it
// (`deferred`), and only this package's adapters pass one that is not
// (`deferredCapturingNonSendable`).
final class DeferredObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let factory: () throws -> Observable<Element>

    init(_ factory: @escaping () throws -> Observable<Element>) {
        self.factory = factory
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let source: Observable<Element>
        do {
            source = try factory()
        } catch {
            observer.onError(error)
            return NopDisposable.shared
        }
        return source.subscribe(observer)
    }
}
