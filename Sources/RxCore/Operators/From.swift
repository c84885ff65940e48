extension Observable {
    /// A sequence of the elements of `sequence`, in order, then completion.
    ///
    /// Iteration is lazy and stops as soon as nothing downstream wants more elements (after
    /// `take(2)`, say), so an infinite `Sequence` is fine as long as something downstream ends it.
    ///
    /// - Parameter sequence: The elements to emit; iterated once per subscription.
    /// - Returns: A cold sequence.
    /// - Note: Elements are emitted synchronously, on the subscribing thread, before `subscribe`
    ///   returns. Thread-safe to subscribe from several threads if `sequence` can be iterated so.
    public static func from<S: Sequence>(_ sequence: S) -> Observable<Element> where S.Element == Element {
        FromSequenceObservable(sequence)
    }

    /// A sequence of the given elements, in order, then completion.
    ///
    /// - Parameter elements: The elements to emit.
    /// - Returns: A cold sequence.
    /// - Note: Elements are emitted synchronously, on the subscribing thread. Thread-safe.
    public static func of(_ elements: Element...) -> Observable<Element> {
        FromSequenceObservable(elements)
    }

    /// A sequence of `optional`'s value, if it has one, then completion.
    ///
    /// - Parameter optional: The element to emit, or nil for a sequence that only completes.
    /// - Returns: A cold sequence.
    /// - Note: Events are emitted synchronously, on the subscribing thread. Thread-safe.
    public static func from(optional: Element?) -> Observable<Element> {
        if let optional {
            return JustObservable(optional)
        }
        return EmptyObservable()
    }
}

// @unchecked Sendable: immutable after init; each subscription makes its own iterator.
final class FromSequenceObservable<S: Sequence>: Observable<S.Element>, @unchecked Sendable {
    private let sequence: S

    init(_ sequence: S) {
        self.sequence = sequence
    }

    override func subscribe(_ observer: ObserverNode<S.Element>) -> ClassDisposable {
        // The disposable returned here only reaches whoever subscribed after this loop ends, so the
        // loop asks the observer chain itself whether anyone still listens (`take(2)` stopped).
        var iterator = sequence.makeIterator()
        while !observer.isDetached, let element = iterator.next() {
            observer.onNext(element)
        }
        if !observer.isDetached {
            observer.onCompleted()
        }
        return NopDisposable.shared
    }
}
