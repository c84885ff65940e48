/// The terminal observer of a `Single` or a `Maybe`: success on the first element (which ends the
/// subscription), completion or error otherwise. A `Single` that completes without an element fails
/// with `RxError.noElements`. Handlers are constants (no lock per event); the user's
/// `SubscriptionHandle` lets go of them when the subscription ends.
@usableFromInline
// @unchecked Sendable: the handlers are immutable; the lifecycle word orders the one event and dispose.
final class PrimitiveSubscriber<Element>: HandledSubscriber<Element>, @unchecked Sendable {
    @usableFromInline
    let successHandler: (@Sendable (Element) -> Void)?
    @usableFromInline
    let errorHandler: (@Sendable (Swift.Error) -> Void)?
    @usableFromInline
    let completedHandler: (@Sendable () -> Void)?
    @usableFromInline
    let disposedHandler: (@Sendable () -> Void)?
    /// A `Single`'s: completion without an element is `RxError.noElements`.
    @usableFromInline
    let requiresElement: Bool

    @inlinable
    init(
        requiresElement: Bool,
        onSuccess: (@Sendable (Element) -> Void)?,
        onError: (@Sendable (Swift.Error) -> Void)?,
        onCompleted: (@Sendable () -> Void)?,
        onDisposed: (@Sendable () -> Void)?
    ) {
        self.requiresElement = requiresElement
        successHandler = onSuccess
        errorHandler = onError
        completedHandler = onCompleted
        disposedHandler = onDisposed
        super.init()
    }

    override func onNext(_ element: Element) {
        if claimTerminal() {
            successHandler?(element)
            dispose()
        }
    }

    override func onError(_ error: Swift.Error) {
        if claimTerminal() {
            fail(error)
            dispose()
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            if requiresElement {
                fail(RxError.noElements)
            } else {
                completedHandler?()
            }
            dispose()
        }
    }

    private func fail(_ error: Swift.Error) {
        errorHandler?(error)
    }

    override func didDispose() {
        disposedHandler?()
        super.didDispose()
    }
}
