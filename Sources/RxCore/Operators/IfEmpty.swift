extension ObservableType {
    /// The source's events, or `default` then completion if the source completes without an
    /// element (RxSwift's `ifEmpty(default:)`).
    ///
    /// - Parameter default: The element sent in place of an empty completion.
    /// - Returns: The source's elements and terminal event; an error passes through, empty or not.
    /// - Note: Events arrive on the source's thread (`default` on the thread of the completion).
    ///   Thread-safe.
    public func ifEmpty(default: Element) -> Observable<Element> {
        IfEmptyObservable(source: asObservable(), fallback: .just(`default`))
    }

    /// The source's events, or, if the source completes without an element, those of `other`
    /// (RxSwift's `ifEmpty(switchTo:)`).
    ///
    /// - Parameter other: Subscribed only after an empty completion of the source, whose
    ///   subscription is disposed first.
    /// - Returns: The source's elements and terminal event, or `other`'s events; the source's
    ///   error passes through and `other` is then never subscribed.
    /// - Note: `other`'s events arrive on its own thread. Disposing disposes whichever sequence is
    ///   subscribed. Thread-safe.
    public func ifEmpty(switchTo other: Observable<Element>) -> Observable<Element> {
        IfEmptyObservable(source: asObservable(), fallback: other)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class IfEmptyObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let fallback: Observable<Element>

    init(source: Observable<Element>, fallback: Observable<Element>) {
        self.source = source
        self.fallback = fallback
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = IfEmptySink(fallback: fallback, downstream: observer)
        sink.run(source)
        return sink
    }
}

/// Forwards the source and, after an empty completion, the fallback. Each of the two is observed
/// by an `IfEmptyObserver` of its own, so that a source that keeps talking after its completion
/// cannot pass for the fallback; the current one is held in a `SerialDisposable`, which the sink
/// owns as its upstream.
// @unchecked Sendable: `fallback` and `current` are immutable (the SerialDisposable is thread-safe);
// the rest is the atomic lifecycle word of Sink.
final class IfEmptySink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private let fallback: Observable<Element>
    private let current = SerialDisposable()

    init(fallback: Observable<Element>, downstream: ObserverNode<Element>) {
        self.fallback = fallback
        super.init(downstream: downstream)
    }

    /// Subscribes to the source.
    func run(_ source: Observable<Element>) {
        // First: from now on, disposing the sink disposes whichever observer `current` holds.
        setUpstream(current)
        subscribe(IfEmptyObserver(parent: self, isFallback: false), to: source)
    }

    /// The source completed without an element: its subscription is already disposed.
    func sourceCompletedEmpty() {
        subscribe(IfEmptyObserver(parent: self, isFallback: true), to: fallback)
    }

    private func subscribe(_ observer: IfEmptyObserver<Element>, to sequence: Observable<Element>) {
        // Held before subscribing: if the sink is disposed meanwhile, the observer is disposed
        // at once and drops whatever `sequence` sends.
        current.disposable = observer
        observer.setUpstream(sequence.subscribe(observer))
    }
}

/// Observes the source (`isFallback` false) or the fallback of an `IfEmptySink`.
// @unchecked Sendable: `isEmpty` is touched only by the events of the one sequence this observer
// is subscribed to, which arrive serialized; the rest is immutable or the atomic lifecycle.
final class IfEmptyObserver<Element>: SubscriptionNode<Element>, @unchecked Sendable {
    private let parent: IfEmptySink<Element>
    private let isFallback: Bool
    private var isEmpty = true

    init(parent: IfEmptySink<Element>, isFallback: Bool) {
        self.parent = parent
        self.isFallback = isFallback
        super.init()
    }

    override var isDetached: Bool {
        isStoppedOrDisposed || parent.isDetached
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        isEmpty = false
        parent.forwardNext(element)
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            dispose()
            parent.forwardError(error)
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            // Disposed first: the source's subscription ends before the fallback's begins.
            dispose()
            if isEmpty && !isFallback {
                parent.sourceCompletedEmpty()
            } else {
                parent.forwardCompleted()
            }
        }
    }
}
