/// The sink of `withLatestFrom`: keeps `second`'s latest element and pairs each source element with
/// it; an error from `second`, which may arrive on another thread, is serialized with the source's
/// elements as `SideSubscriptionSink` describes.
// @unchecked Sendable: the latest element is in a LockedState; `resultSelector` is immutable.
final class WithLatestFromSink<First, Second, Result>: SideSubscriptionSink<First, Result>, @unchecked Sendable {
    private let resultSelector: @Sendable (First, Second) throws -> Result
    /// The latest element of `second`; nil until it has emitted.
    private let latest = LockedState<Second?>.make(nil)

    init(resultSelector: @escaping @Sendable (First, Second) throws -> Result, downstream: ObserverNode<Result>) {
        self.resultSelector = resultSelector
        super.init(downstream: downstream)
    }

    override func onNext(_ element: First) {
        guard !isStoppedOrDisposed, let latest = latest.withLock({ $0 }) else { return }
        let result: Result
        do {
            result = try resultSelector(element, latest)
        } catch {
            end(.error(error))
            return
        }
        emit(result)
    }

    /// `second` emitted: its element becomes the latest.
    func secondEmitted(_ element: Second) {
        let replaced = latest.withLock { latest -> Second? in
            // Checked under the lock: `didDispose` empties it after the flag is set.
            guard !isStoppedOrDisposed else { return nil }
            defer { latest = element }
            return latest
        }
        // Released here, after the lock: its deinit may run user code.
        _ = replaced
    }

    override func didDispose() {
        let dropped = latest.withLock { latest -> Second? in
            defer { latest = nil }
            return latest
        }
        // Released here, after the lock: its deinit may run user code.
        _ = dropped
        super.didDispose()
    }
}

/// Observes `second` for a `WithLatestFromSink`.
// @unchecked Sendable: `parent` is immutable; the lifecycle word is atomic.
final class WithLatestFromSecond<First, Second, Result>: SubscriptionNode<Second>, @unchecked Sendable {
    private let parent: WithLatestFromSink<First, Second, Result>

    init(parent: WithLatestFromSink<First, Second, Result>) {
        self.parent = parent
        super.init()
    }

    override func onNext(_ element: Second) {
        if !isStoppedOrDisposed {
            parent.secondEmitted(element)
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            dispose()
            parent.end(.error(error))
        }
    }

    override func onCompleted() {
        // The latest element stays; only the subscription to `second` is released.
        if claimTerminal() {
            dispose()
        }
    }
}
