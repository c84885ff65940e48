/// A sequence of elements pushed to observers: `next* (error | completed)?`.
///
/// An `Observable` is a description of work; nothing happens until something subscribes, and each
/// subscription runs the work anew unless the sequence is shared (`share(replay:scope:)`).
///
/// - Note: Subscribing is thread-safe. Events reach an observer serialized, on the thread the
///   source emits on, unless `observe(on:)` moves them.
// @unchecked Sendable: an Observable is immutable after init (subclasses store only `let`s); the
// subjects, which are mutable, keep their state in a LockedState.
public class Observable<Element>: ObservableType, @unchecked Sendable {
    @usableFromInline
    init() {}

    /// Subscribes `observer`; see `ObservableType.subscribe(_:)`.
    public final func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        if let erased = observer as? AnyObserver<Element> {
            return subscribe(erased.node)
        }
        return subscribe(ForwardingObserverNode(observer))
    }

    /// Runs the work of the sequence for one observer. Every operator overrides this.
    ///
    /// Returns a class instance (`ClassDisposable`, 16 bytes) so that the sink storing it as its
    /// upstream needs no 40-byte existential; `NopDisposable.shared` where there is nothing to release.
    @usableFromInline
    func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        observer.onCompleted()
        return NopDisposable.shared
    }

    /// Returns itself.
    public func asObservable() -> Observable<Element> {
        self
    }
}
