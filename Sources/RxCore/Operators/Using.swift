extension Observable {
    /// A sequence that owns a resource for the length of each subscription (RxSwift's `using`).
    ///
    /// Each subscription makes its own resource, builds the sequence from it and subscribes; when
    /// the subscription ends (terminal event or dispose) it disposes the sequence's subscription,
    /// then the resource.
    ///
    /// - Parameters:
    ///   - resourceFactory: Makes the resource, once per subscription. An error it throws is sent
    ///     to the subscriber as `onError`; there is then no resource to dispose. `Resource` is a
    ///     concrete type, as in RxSwift (`CompositeDisposable`, `SerialDisposable`, a class of
    ///     your own): an existential such as `Disposables.create { }`'s `Cancelable` does not
    ///     conform to `Disposable` as a generic argument.
    ///   - observableFactory: Builds the sequence from the resource. An error it throws is sent to
    ///     the subscriber as `onError`, and the resource is disposed right after.
    /// - Returns: A cold sequence with the events of the built one.
    /// - Note: Both factories run on the subscribing thread, in order; the resource is disposed on
    ///   the thread that ends the subscription (the one delivering the terminal event, or the one
    ///   calling `dispose()`), exactly once. Thread-safe if the factories are.
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping @Sendable () throws -> Resource,
        observableFactory: @escaping @Sendable (Resource) throws -> Observable<Element>
    ) -> Observable<Element> {
        UsingObservable(resourceFactory: resourceFactory, observableFactory: observableFactory)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class UsingObservable<Element, Resource: Disposable>: Observable<Element>, @unchecked Sendable {
    private let resourceFactory: @Sendable () throws -> Resource
    private let observableFactory: @Sendable (Resource) throws -> Observable<Element>

    init(
        resourceFactory: @escaping @Sendable () throws -> Resource,
        observableFactory: @escaping @Sendable (Resource) throws -> Observable<Element>
    ) {
        self.resourceFactory = resourceFactory
        self.observableFactory = observableFactory
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let resource: Resource
        do {
            resource = try resourceFactory()
        } catch {
            observer.onError(error)
            return NopDisposable.shared
        }
        let source: Observable<Element>
        do {
            source = try observableFactory(resource)
        } catch {
            // As RxSwift: the subscriber hears the error, then the resource goes.
            observer.onError(error)
            resource.dispose()
            return NopDisposable.shared
        }
        let sink = ForwardingSink(downstream: observer)
        let subscription = source.subscribe(sink)
        // Set last: if the source ended during `subscribe`, this disposes both at once. The
        // subscription goes first, then the resource it may still use.
        sink.setUpstream(SubscriptionGroup(members: [subscription, classDisposable(resource)]))
        return sink
    }
}
