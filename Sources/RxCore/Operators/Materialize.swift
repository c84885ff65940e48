/// A type that carries an `Event`; lets `dematerialize()` apply to sequences of events.
public protocol EventConvertible {
    /// The element type of the event.
    associatedtype Element

    /// The event itself.
    var event: Event<Element> { get }
}

extension Event: EventConvertible {
    /// Returns itself.
    public var event: Event<Element> { self }
}

extension ObservableType {
    /// Turns every event, terminal ones included, into an element, then completes.
    ///
    /// - Returns: A sequence of `.next(element)` events, then one `.error` or `.completed` event, then
    ///   completion; it never fails.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func materialize() -> Observable<Event<Element>> {
        SinkObservable(source: asObservable()) { MaterializeSink<Element>(downstream: $0) }
    }
}

extension ObservableType where Element: EventConvertible {
    /// Turns a sequence of events back into the events themselves; the inverse of `materialize()`.
    ///
    /// - Returns: A sequence that emits each `.next` element and ends at the first `.error` or
    ///   `.completed` element (disposing the source), or when the source itself ends.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func dematerialize() -> Observable<Element.Element> {
        DematerializeObservable(source: asObservable())
    }
}

// @unchecked Sendable: no state beyond the atomic lifecycle word of Sink.
final class MaterializeSink<Element>: Sink<Element, Event<Element>>, @unchecked Sendable {
    override func onNext(_ element: Element) {
        forwardNext(.next(element))
    }

    override func onError(_ error: Error) {
        forwardNext(.error(error))
        forwardCompleted()
    }

    override func onCompleted() {
        forwardNext(.completed)
        forwardCompleted()
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class DematerializeObservable<Wrapped: EventConvertible>: Observable<Wrapped.Element>, @unchecked Sendable {
    private let source: Observable<Wrapped>

    init(source: Observable<Wrapped>) {
        self.source = source
    }

    override func subscribe(_ observer: ObserverNode<Wrapped.Element>) -> ClassDisposable {
        let sink = DematerializeSink<Wrapped>(downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

// @unchecked Sendable: no state beyond the atomic lifecycle word of Sink.
final class DematerializeSink<Wrapped: EventConvertible>: Sink<Wrapped, Wrapped.Element>, @unchecked Sendable {
    override func onNext(_ element: Wrapped) {
        switch element.event {
        case .next(let value): forwardNext(value)
        case .error(let error): forwardError(error)
        case .completed: forwardCompleted()
        }
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
