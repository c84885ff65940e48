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
        let sink = CatchSink(handler: handler, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

/// Observes the source; on its error subscribes the fallback, whose events go straight downstream.
// The fallback subscription, also touched by dispose, lives in `state`.
// @unchecked Sendable: `sourceEnded` is touched only by source events (serialized); the rest is in `state`.
final class CatchSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private struct State {
        var fallback: Disposable?
    }

    private let handler: @Sendable (Error) throws -> Observable<Element>
    private let state = LockedState<State>.make(State())
    private var sourceEnded = false

    init(handler: @escaping @Sendable (Error) throws -> Observable<Element>, downstream: ObserverNode<Element>) {
        self.handler = handler
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !sourceEnded else { return }
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        guard !sourceEnded, !isStoppedOrDisposed else { return }
        sourceEnded = true
        let fallback: Observable<Element>
        do {
            fallback = try handler(error)
        } catch {
            forwardError(error)
            return
        }
        let node = CatchFallbackNode(parent: self)
        let attached = state.withLock { state -> Bool in
            if isDisposed { return false }
            state.fallback = node
            return true
        }
        if attached {
            node.setUpstream(fallback.subscribe(node))
        }
    }

    override func onCompleted() {
        guard !sourceEnded else { return }
        sourceEnded = true
        forwardCompleted()
    }

    override func didDispose() {
        let fallback = state.withLock { state -> Disposable? in
            defer { state.fallback = nil }
            return state.fallback
        }
        fallback?.dispose()
        super.didDispose()
    }
}

/// Forwards the fallback sequence of a `CatchSink` downstream.
// @unchecked Sendable: `parent` is immutable; the lifecycle word is atomic.
final class CatchFallbackNode<Element>: SubscriptionNode<Element>, @unchecked Sendable {
    private let parent: CatchSink<Element>

    init(parent: CatchSink<Element>) {
        self.parent = parent
        super.init()
    }

    override var isDetached: Bool {
        isStoppedOrDisposed || parent.isDetached
    }

    override func onNext(_ element: Element) {
        if !isStoppedOrDisposed {
            parent.forwardNext(element)
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            parent.forwardError(error)
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            parent.forwardCompleted()
        }
    }
}
