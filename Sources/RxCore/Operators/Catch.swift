extension ObservableType {
    /// Continues with the sequence returned by `handler` when the source fails.
    ///
    /// - Parameter handler: Receives the source's error and returns the sequence to continue with
    ///   (subscribed once, at that moment); an error it throws terminates the sequence with it.
    /// - Returns: The source's elements, then, if it fails, the fallback's events.
    /// - Note: `handler` runs on the thread the error arrives on; the fallback's events arrive on its
    ///   own thread. Disposing disposes whichever sequence is subscribed. Thread-safe.
    public func `catch`(_ handler: @escaping @Sendable (Error) throws -> Observable<Element>) -> Observable<Element> {
        CatchObservable(source: asObservable(), handler: handler)
    }

    /// Completes with `element` as last element when the source fails, instead of failing.
    ///
    /// - Parameter element: The element emitted in place of the error, before completion.
    /// - Returns: The source's elements, then `element` and completion if it fails.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func catchAndReturn(_ element: Element) -> Observable<Element> {
        let captured = CapturedElement(element)
        return CatchObservable(source: asObservable()) { _ in .just(captured.value) }
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class CatchObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let handler: @Sendable (Error) throws -> Observable<Element>

    init(source: Observable<Element>, handler: @escaping @Sendable (Error) throws -> Observable<Element>) {
        self.source = source
        self.handler = handler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = CatchSink(source: source, handler: handler, downstream: observer)
        sink.resubscribe()
        return sink
    }
}

/// Subscribes the source and, when it fails, the fallback `handler` returns: two attempts on
/// `ResubscribingSink`'s loop, the second one's error final.
// @unchecked Sendable: the fallback lives in a LockedState; `handler` is an immutable `@Sendable`
// closure; the rest is ResubscribingSink's.
final class CatchSink<Element>: ResubscribingSink<Element>, @unchecked Sendable {
    private let handler: @Sendable (Error) throws -> Observable<Element>
    /// The fallback, once the source failed.
    private let fallback = LockedState<Observable<Element>?>.make(nil)

    init(
        source: Observable<Element>,
        handler: @escaping @Sendable (Error) throws -> Observable<Element>,
        downstream: ObserverNode<Element>
    ) {
        self.handler = handler
        super.init(source: source, downstream: downstream)
    }

    override func nextSource() -> Observable<Element>? {
        fallback.withLock { $0 } ?? super.nextSource()
    }

    override func attemptFailed(_ error: Error) {
        // The second attempt is the fallback: its error is final.
        guard attemptCount == 1 else {
            forwardError(error)
            return
        }
        let next: Observable<Element>
        do {
            next = try handler(error)
        } catch {
            forwardError(error)
            return
        }
        fallback.withLock { $0 = next }
        resubscribe()
    }
}
