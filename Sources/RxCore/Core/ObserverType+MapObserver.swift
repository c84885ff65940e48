import Synchronization

extension ObserverType {
    /// An observer of `Result` that transforms each element with `transform` and sends it to this
    /// observer (RxSwift's `mapObserver`).
    ///
    /// Errors and completion pass through unchanged. An error thrown by `transform` is sent to this
    /// observer as `.error` in place of the element; from then on (as after any terminal event sent
    /// through it) the returned observer drops what it receives, so this observer never sees an
    /// event after its terminal one.
    ///
    /// - Parameter transform: Turns each element received into one for this observer.
    /// - Returns: A type-erased observer that feeds this one.
    /// - Note: `transform` runs on the thread that sends the event, and the event reaches this
    ///   observer on that thread. Like any observer, the result must not be sent events
    ///   concurrently.
    public func mapObserver<Result>(_ transform: @escaping @Sendable (Result) throws -> Element) -> AnyObserver<Result> {
        AnyObserver(self).mapObserver(transform)
    }
}

extension AnyObserver {
    /// An observer of `Result` that transforms each element with `transform` and sends it to this
    /// observer; see `ObserverType.mapObserver(_:)`. Feeds the observer behind this one directly,
    /// without wrapping it again.
    ///
    /// - Parameter transform: Turns each element received into one for this observer; an error it
    ///   throws is sent as `.error`.
    /// - Returns: A type-erased observer that feeds this one.
    /// - Note: `transform` runs on the thread that sends the event.
    public func mapObserver<Result>(_ transform: @escaping @Sendable (Result) throws -> Element) -> AnyObserver<Result> {
        AnyObserver<Result>(node: MapObserverNode(target: node, transform: transform))
    }
}

/// Transforms elements on their way to `target`; stops after the first terminal event it sends.
// @unchecked Sendable: `target` and `transform` are immutable (the target node is Sendable by its
// own invariant); `isStopped` is atomic.
final class MapObserverNode<Input, Output>: ObserverNode<Input>, @unchecked Sendable {
    private let target: ObserverNode<Output>
    private let transform: @Sendable (Input) throws -> Output
    private let isStopped = Atomic<Bool>(false)

    init(target: ObserverNode<Output>, transform: @escaping @Sendable (Input) throws -> Output) {
        self.target = target
        self.transform = transform
    }

    override func onNext(_ element: Input) {
        guard !isStopped.load(ordering: .acquiring) else { return }
        let output: Output
        do {
            output = try transform(element)
        } catch {
            onError(error)
            return
        }
        target.onNext(output)
    }

    override func onError(_ error: Error) {
        if !isStopped.exchange(true, ordering: .acquiringAndReleasing) {
            target.onError(error)
        }
    }

    override func onCompleted() {
        if !isStopped.exchange(true, ordering: .acquiringAndReleasing) {
            target.onCompleted()
        }
    }
}
