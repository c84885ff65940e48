extension PrimitiveSequence where Trait == SingleTrait {
    /// A `Single` whose work reports its one outcome to a completion: this package's adapters of
    /// callback APIs (RxHTTP's calls). Each subscription gets one sink that takes the `Result` as
    /// the callback API gives it, with its own error type, and sends the element and the
    /// completion (or the error) straight on — no `AnyObserver`, no `Event` per element, no
    /// closure around the callback's own. SPI, not API; public and inlinable so that the adapters'
    /// modules specialize it.
    ///
    /// - Parameter start: Starts the work for one subscription, handing it the completion to call
    ///   once (later calls, and calls after dispose, are dropped); returns what cancels it. Runs on
    ///   the subscribing thread and may capture values that are not `Sendable` (see
    ///   `Observable.createCapturingNonSendable`).
    /// - Returns: A cold `Single`.
    @_spi(RxNetworkKitInternals) @inlinable
    public static func fromCompletion<Failure: Error>(
        _ start: @escaping (_ completion: @escaping (Result<Element, Failure>) -> Void) -> Disposable
    ) -> Single<Element> {
        Single(unchecked: CompletionObservable(start))
    }
}

@usableFromInline
// @unchecked Sendable: immutable after init; `start` runs on the subscribing thread and only reads
// what it captured (the adapters' request values), as `createCapturingNonSendable`'s handler does.
final class CompletionObservable<Element, Failure: Error>: Observable<Element>, @unchecked Sendable {
    @usableFromInline
    let start: (@escaping (Result<Element, Failure>) -> Void) -> Disposable
    // The sink's class, resolved where `fromCompletion` was inlined (a constant in specialized
    // code): `subscribe` then allocates and boxes the sink without a generic metadata lookup.
    @usableFromInline
    let sinkType: CompletionSink<Element, Failure>.Type
    @usableFromInline
    let erasedSinkType: any (AnyObject & Disposable).Type

    @inlinable
    init(_ start: @escaping (@escaping (Result<Element, Failure>) -> Void) -> Disposable) {
        self.start = start
        self.sinkType = CompletionSink<Element, Failure>.self
        self.erasedSinkType = CompletionSink<Element, Failure>.self
        super.init()
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = sinkType.init(downstream: observer)
        sink.setUpstream(classDisposable(start(sink.complete)))
        return disposable(sink, ofType: erasedSinkType)
    }
}

/// Takes one `Result` and sends it on as the element and completion, or the error; nothing after
/// the first, or after dispose.
@usableFromInline
// @unchecked Sendable: no state beyond the atomic lifecycle word of Sink.
final class CompletionSink<Element, Failure: Error>: Sink<Element, Element>, @unchecked Sendable {
    /// The work's one outcome.
    func complete(_ result: Result<Element, Failure>) {
        switch result {
        case .success(let element):
            // Claimed first: a second outcome, racing this one, finds the sink stopped.
            guard claimTerminal() else { return }
            downstream.onNext(element)
            downstream.onCompleted()
            dispose()
        case .failure(let error):
            forwardError(error)
        }
    }

    // Nothing upstream sends events: the work reports through `complete`.
    override func onNext(_ element: Element) {}
    override func onError(_ error: Swift.Error) {}
    override func onCompleted() {}
}
