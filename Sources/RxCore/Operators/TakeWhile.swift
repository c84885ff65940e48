/// Whether `take(while:)` and `take(until:)` with a predicate also emit the element that ends them.
public enum TakeBehavior: Sendable {
    /// Emit the element that ends the sequence, then complete.
    case inclusive
    /// Complete without emitting the element that ends the sequence.
    case exclusive
}

extension ObservableType {
    /// Elements while `predicate` holds; completes at the first element for which it does not.
    ///
    /// - Parameters:
    ///   - predicate: Tested on each element; an error it throws terminates the sequence with it.
    ///   - behavior: Whether the first element that fails `predicate` is emitted before completion.
    /// - Returns: A prefix of the source; the source is disposed when it ends.
    /// - Note: `predicate` runs on the thread the element arrives on. Thread-safe.
    public func take(
        while predicate: @escaping @Sendable (Element) throws -> Bool,
        behavior: TakeBehavior = .exclusive
    ) -> Observable<Element> {
        TakeWhileObservable(source: asObservable(), behavior: behavior) { try !predicate($0) }
    }

    /// Elements until `predicate` holds; completes at the first element for which it does.
    ///
    /// - Parameters:
    ///   - predicate: Tested on each element; an error it throws terminates the sequence with it.
    ///   - behavior: Whether the element that satisfies `predicate` is emitted before completion.
    /// - Returns: A prefix of the source; the source is disposed when it ends.
    /// - Note: `predicate` runs on the thread the element arrives on. Thread-safe.
    public func take(
        until predicate: @escaping @Sendable (Element) throws -> Bool,
        behavior: TakeBehavior = .exclusive
    ) -> Observable<Element> {
        TakeWhileObservable(source: asObservable(), behavior: behavior, isLast: predicate)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class TakeWhileObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let behavior: TakeBehavior
    private let isLast: @Sendable (Element) throws -> Bool

    init(source: Observable<Element>, behavior: TakeBehavior, isLast: @escaping @Sendable (Element) throws -> Bool) {
        self.source = source
        self.behavior = behavior
        self.isLast = isLast
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = TakeWhileSink(isLast: isLast, behavior: behavior, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

// @unchecked Sendable: immutable closures; state is the atomic lifecycle word of Sink.
final class TakeWhileSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private let isLast: @Sendable (Element) throws -> Bool
    private let behavior: TakeBehavior

    init(isLast: @escaping @Sendable (Element) throws -> Bool, behavior: TakeBehavior, downstream: ObserverNode<Element>) {
        self.isLast = isLast
        self.behavior = behavior
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        let last: Bool
        do {
            last = try isLast(element)
        } catch {
            forwardError(error)
            return
        }
        if !last {
            forwardNext(element)
            return
        }
        if behavior == .inclusive {
            forwardNext(element)
        }
        forwardCompleted()
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
