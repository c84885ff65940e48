extension ObservableType {
    /// Elements of this sequence until `other` emits an element; then completion.
    ///
    /// `other` is subscribed first; if it emits at once the source is never subscribed. An error from
    /// `other` terminates the sequence with that error; `other` completing without an element
    /// changes nothing (the source goes on), as in RxSwift.
    ///
    /// - Parameter other: The sequence whose first element ends this one.
    /// - Returns: A prefix of the source; on termination or dispose both subscriptions are disposed.
    /// - Note: Events arrive on the source's thread, or on `other`'s thread for the completion it
    ///   causes. If `other` fires while an element is being delivered on another thread, the
    ///   completion is delivered right after that element, on the source's thread: deliveries never
    ///   overlap. An element the source sends from inside downstream's own `onNext` is delivered
    ///   right after that call returns. Thread-safe.
    public func take<Other: ObservableType>(until other: Other) -> Observable<Element> {
        TakeUntilObservable(source: asObservable(), other: other.asObservable())
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class TakeUntilObservable<Element, Other>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let other: Observable<Other>

    init(source: Observable<Element>, other: Observable<Other>) {
        self.source = source
        self.other = other
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = TakeUntilSink<Element>(downstream: observer)
        let trigger = TakeUntilTrigger<Other, Element>(parent: sink)
        sink.attach(trigger)
        trigger.setUpstream(other.subscribe(trigger))
        if !sink.isStoppedOrDisposed {
            sink.setUpstream(source.subscribe(sink))
        }
        return sink
    }
}

/// Forwards the source until the trigger fires; see `SideSubscriptionSink` for how the two are
/// serialized.
// @unchecked Sendable: adds nothing to SideSubscriptionSink.
final class TakeUntilSink<Element>: SideSubscriptionSink<Element, Element>, @unchecked Sendable {
    override func onNext(_ element: Element) {
        emit(element)
    }
}

/// Observes `other` for a `TakeUntilSink`.
// @unchecked Sendable: `parent` is immutable; the lifecycle word is atomic.
final class TakeUntilTrigger<Other, Element>: SubscriptionNode<Other>, @unchecked Sendable {
    private let parent: TakeUntilSink<Element>

    init(parent: TakeUntilSink<Element>) {
        self.parent = parent
        super.init()
    }

    override func onNext(_ element: Other) {
        if claimTerminal() {
            parent.end(.completed)
            dispose()
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            parent.end(.error(error))
            dispose()
        }
    }

    override func onCompleted() {
        // Without an element, `other` no longer matters; the source goes on.
        if claimTerminal() {
            dispose()
        }
    }
}
