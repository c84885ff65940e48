extension Completable {
    /// Awaits this `Completable`: subscribes, and returns when it completes or throws its error.
    ///
    /// Cancelling the awaiting task disposes the subscription and throws `CancellationError`; so
    /// does a subscription disposed before it terminated.
    ///
    /// - Throws: The `Completable`'s error, or `CancellationError`.
    /// - Note: Thread-safe.
    public var value: Void {
        get async throws {
            let subscription = SingleAssignmentDisposable()
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                    let once = ResumeOnce(continuation)
                    subscription.setDisposable(subscribe(
                        onCompleted: { once.resume(returning: ()) },
                        onError: { once.resume(throwing: $0) },
                        onDisposed: { once.resume(throwing: CancellationError()) }
                    ))
                }
            } onCancel: {
                subscription.dispose()
            }
        }
    }
}
