/// The internal observer every operator sink derives from.
///
/// Upstream calls `onNext`/`onError`/`onCompleted` through the vtable, so the hot path never builds
/// an `Event` value (whose generic metadata lookup dominated RxSwift's push profile) and never goes
/// through an existential. Subclasses override all three; the base implementations drop the event.
@usableFromInline
// @unchecked Sendable: subclasses keep mutable state in atomics or a LockedState, and events reach
// a node serialized, as the Rx grammar requires of every sender.
class ObserverNode<Element>: @unchecked Sendable {
    @usableFromInline
    init() {}

    @usableFromInline
    func onNext(_ element: Element) {}

    @usableFromInline
    func onError(_ error: Error) {}

    @usableFromInline
    func onCompleted() {}

    /// Whether no event sent to this node can reach an observer any more: the node, or one downstream
    /// of it, stopped or was disposed. Producers that emit in a synchronous loop (`from`) poll it to
    /// stop early, before the disposable they return has been wired to the node that ended.
    /// Plain observers cannot tell, so the base answers false.
    @usableFromInline
    var isDetached: Bool { false }

    /// Called when the source this node observes was freed without terminating (a subject that
    /// nothing references any more): no event will ever come. A subscriber that keeps itself alive
    /// until its subscription ends lets go then, and a sink with no other source passes it on, so
    /// that the chain is freed as the subject was (RxSwift frees it too). Nothing is disposed.
    @usableFromInline
    func sourceWasAbandoned() {}

    @inlinable
    final func on(_ event: Event<Element>) {
        switch event {
        case .next(let element): onNext(element)
        case .error(let error): onError(error)
        case .completed: onCompleted()
        }
    }
}

/// Adapts any `ObserverType` to a node.
// @unchecked Sendable: immutable; events arrive serialized per the grammar.
final class ForwardingObserverNode<Observer: ObserverType>: ObserverNode<Observer.Element>, @unchecked Sendable {
    private let observer: Observer

    init(_ observer: Observer) {
        self.observer = observer
    }

    override func onNext(_ element: Observer.Element) { observer.on(.next(element)) }
    override func onError(_ error: Error) { observer.on(.error(error)) }
    override func onCompleted() { observer.on(.completed) }
}

/// Adapts an event closure to a node.
// @unchecked Sendable: immutable; events arrive serialized per the grammar.
final class ClosureObserverNode<Element>: ObserverNode<Element>, @unchecked Sendable {
    private let handler: @Sendable (Event<Element>) -> Void

    init(_ handler: @escaping @Sendable (Event<Element>) -> Void) {
        self.handler = handler
    }

    override func onNext(_ element: Element) { handler(.next(element)) }
    override func onError(_ error: Error) { handler(.error(error)) }
    override func onCompleted() { handler(.completed) }
}
