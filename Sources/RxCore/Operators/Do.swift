import Synchronization

extension ObservableType {
    /// Runs side effects at points of the subscription's life, leaving the events unchanged.
    ///
    /// Every parameter is optional. The `on…` handlers run before the event goes downstream and the
    /// `after…` ones right after it. An error thrown by `onNext` or `afterNext` terminates the
    /// sequence with that error and disposes the source; one thrown by `onError` replaces the error
    /// delivered; one thrown by `onCompleted` is delivered instead of completion; errors thrown by
    /// `afterError`/`afterCompleted` are dropped (the sequence has already ended).
    ///
    /// - Parameters:
    ///   - onNext: Before each element.
    ///   - afterNext: After each element.
    ///   - onError: Before the error.
    ///   - afterError: After the error.
    ///   - onCompleted: Before completion.
    ///   - afterCompleted: After completion.
    ///   - onSubscribe: Before the source is subscribed.
    ///   - onSubscribed: After the source is subscribed.
    ///   - onDispose: Once, when the subscription ends: after the terminal event or on dispose,
    ///     and always after `onSubscribed` (for a source that ends while being subscribed: the
    ///     source is disposed, then `onSubscribed`, then `onDispose`, as in RxSwift).
    /// - Returns: The source's events, unchanged unless a handler throws.
    /// - Note: Event handlers run on the thread the event arrives on; `onSubscribe`/`onSubscribed`
    ///   on the subscribing thread; `onDispose` on the thread that ends the subscription.
    ///   Thread-safe.
    public func `do`(
        onNext: (@Sendable (Element) throws -> Void)? = nil,
        afterNext: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (Error) throws -> Void)? = nil,
        afterError: (@Sendable (Error) throws -> Void)? = nil,
        onCompleted: (@Sendable () throws -> Void)? = nil,
        afterCompleted: (@Sendable () throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Observable<Element> {
        DoObservable(
            source: asObservable(),
            handlers: DoHandlers(
                onNext: onNext, afterNext: afterNext, onError: onError, afterError: afterError,
                onCompleted: onCompleted, afterCompleted: afterCompleted,
                onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose
            )
        )
    }
}

/// The side effects of one `do` operator.
struct DoHandlers<Element> {
    let onNext: (@Sendable (Element) throws -> Void)?
    let afterNext: (@Sendable (Element) throws -> Void)?
    let onError: (@Sendable (Error) throws -> Void)?
    let afterError: (@Sendable (Error) throws -> Void)?
    let onCompleted: (@Sendable () throws -> Void)?
    let afterCompleted: (@Sendable () throws -> Void)?
    let onSubscribe: (@Sendable () -> Void)?
    let onSubscribed: (@Sendable () -> Void)?
    let onDispose: (@Sendable () -> Void)?
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class DoObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let handlers: DoHandlers<Element>

    init(source: Observable<Element>, handlers: DoHandlers<Element>) {
        self.source = source
        self.handlers = handlers
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        handlers.onSubscribe?()
        let sink = DoSink(handlers: handlers, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        handlers.onSubscribed?()
        sink.subscribeDidReturn()
        return sink
    }
}

// @unchecked Sendable: `handlers` is immutable; state is the atomic lifecycle word of Sink and the
// atomic `phase`.
final class DoSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private static var subscribing: Int { 0 }
    private static var subscribed: Int { 1 }
    private static var disposedWhileSubscribing: Int { 2 }

    private let handlers: DoHandlers<Element>
    /// Whether `subscribe` has returned: `onDispose` always comes after `onSubscribed` and after
    /// the source's own disposal, also when the source terminated while it was being subscribed
    /// (RxSwift's order: source disposed, `onSubscribed`, `onDispose`).
    private let phase = Atomic<Int>(DoSink.subscribing)

    init(handlers: DoHandlers<Element>, downstream: ObserverNode<Element>) {
        self.handlers = handlers
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        do {
            try handlers.onNext?(element)
            forwardNext(element)
            try handlers.afterNext?(element)
        } catch {
            forwardError(error)
        }
    }

    override func onError(_ error: Error) {
        guard !isStoppedOrDisposed else { return }
        do {
            try handlers.onError?(error)
        } catch {
            forwardError(error)
            return
        }
        guard claimTerminal() else { return }
        downstream.onError(error)
        _ = try? handlers.afterError?(error)
        dispose()
    }

    override func onCompleted() {
        guard !isStoppedOrDisposed else { return }
        do {
            try handlers.onCompleted?()
        } catch {
            forwardError(error)
            return
        }
        guard claimTerminal() else { return }
        downstream.onCompleted()
        _ = try? handlers.afterCompleted?()
        dispose()
    }

    override func sourceWasAbandoned() {
        if abandonUpstream() {
            downstream.sourceWasAbandoned()
        }
    }

    /// Called once the source's subscription is in place and `onSubscribed` ran.
    func subscribeDidReturn() {
        if phase.exchange(Self.subscribed, ordering: .acquiringAndReleasing) == Self.disposedWhileSubscribing {
            handlers.onDispose?()
        }
    }

    override func didDispose() {
        let deferred = phase.compareExchange(
            expected: Self.subscribing, desired: Self.disposedWhileSubscribing, ordering: .acquiringAndReleasing
        ).exchanged
        if !deferred {
            handlers.onDispose?()
        }
        super.didDispose()
    }
}
