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
        let isLast: @Sendable (Element) throws -> Bool = { try !predicate($0) }
        return SinkObservable(source: asObservable()) {
            TakeWhileSink(isLast: isLast, behavior: behavior, downstream: $0)
        }
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
        SinkObservable(source: asObservable()) { [isLast = predicate] observer in
            TakeWhileSink(isLast: isLast, behavior: behavior, downstream: observer)
        }
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
