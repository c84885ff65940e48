/// The parent of `SourceObserver`s: a sink fed by several upstreams.
protocol SourceObserverParent: AnyObject {
    /// Upstream number `index` completed.
    func sourceCompleted(_ index: Int)
    /// An upstream failed.
    func sourceFailed(_ error: Error)
}

/// Observes one upstream of a multi-source sink and hands its events to the sink.
///
/// It is also the disposable of that upstream's subscription: disposing it, which the parent does
/// on its own dispose, ends the subscription. After its terminal event it disposes itself first,
/// releasing the upstream, then tells the parent.
// @unchecked Sendable: immutable after init; the lifecycle word of SubscriptionNode is atomic.
final class SourceObserver<Element>: SubscriptionNode<Element>, @unchecked Sendable {
    private let parent: SourceObserverParent
    private let index: Int
    private let nextHandler: @Sendable (Element) -> Void

    init(parent: SourceObserverParent, index: Int, onNext: @escaping @Sendable (Element) -> Void) {
        self.parent = parent
        self.index = index
        self.nextHandler = onNext
        super.init()
    }

    override func onNext(_ element: Element) {
        if !isStoppedOrDisposed {
            nextHandler(element)
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            dispose()
            parent.sourceFailed(error)
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            dispose()
            parent.sourceCompleted(index)
        }
    }

    /// Subscribes to `source` unless the parent already finished (`isParentStopped`).
    func subscribe(to source: Observable<Element>, unless isParentStopped: Bool) {
        if isParentStopped {
            dispose()
        } else {
            setUpstream(source.subscribe(self))
        }
    }
}

/// A fixed group of subscriptions disposed together, without the bookkeeping of
/// `CompositeDisposable`: the upstream of a multi-source sink.
final class SubscriptionGroup: Disposable {
    let members: [ClassDisposable]

    init(members: [ClassDisposable]) {
        self.members = members
    }

    func dispose() {
        for member in members {
            member.dispose()
        }
    }
}
