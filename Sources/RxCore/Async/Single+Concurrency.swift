extension Single {
    #if compiler(>=6.2)
    /// Awaits the element of this `Single`: subscribes, and returns the element or throws the error.
    ///
    /// Cancelling the awaiting task disposes the subscription (cancelling the work under it) and
    /// throws `CancellationError`; so does a subscription disposed before it produced its event.
    ///
    /// - Returns: The element.
    /// - Throws: The `Single`'s error, or `CancellationError`.
    /// - Note: Subscribes on the caller's executor (`nonisolated(nonsending)`), so the element,
    ///   which need not be `Sendable`, comes back to the caller's isolation. Thread-safe.
    nonisolated(nonsending) public var value: Element {
        get async throws { try await awaitValue() }
    }
    #else
    /// Awaits the element of this `Single`: subscribes, and returns the element or throws the error.
    ///
    /// Cancelling the awaiting task disposes the subscription (cancelling the work under it) and
    /// throws `CancellationError`; so does a subscription disposed before it produced its event.
    ///
    /// - Returns: The element.
    /// - Throws: The `Single`'s error, or `CancellationError`.
    /// - Note: Thread-safe.
    public var value: Element {
        get async throws { try await awaitValue() }
    }
    #endif

    func awaitValue() async throws -> sending Element {
        let subscription = SingleAssignmentDisposable()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let once = ResumeOnce(continuation)
                subscription.setDisposable(subscribe(
                    onSuccess: { once.resume(returning: $0) },
                    onFailure: { once.resume(throwing: $0) },
                    onDisposed: { once.resume(throwing: CancellationError()) }
                ))
            }
        } onCancel: {
            subscription.dispose()
        }
    }

    /// Creates a `Single` from async work, run in a new task for each subscription.
    ///
    /// - Parameters:
    ///   - detached: Run the work in a detached task instead of a child of nothing in particular
    ///     (`Task(priority:)` from a nonisolated context); both start on the global executor.
    ///   - priority: The priority of the task.
    ///   - work: The work; its result or error is the `Single`'s event.
    /// - Returns: A cold `Single`: every subscription starts a task, and disposing the subscription
    ///   cancels that task (`Task.isCancelled` turns true, `Task.sleep` throws).
    /// - Note: The event arrives on the task's thread (the global executor), not the subscriber's.
    @_disfavoredOverload
    public static func create(
        detached: Bool = false,
        priority: TaskPriority? = nil,
        work: @escaping @Sendable () async throws -> Element
    ) -> Single<Element> {
        Single(unchecked: Observable.create { observer in
            let operation: @Sendable () async -> Void = {
                do {
                    let element = try await work()
                    observer.onNext(element)
                    observer.onCompleted()
                } catch {
                    observer.onError(error)
                }
            }
            let task = detached
                ? Task.detached(priority: priority, operation: operation)
                : Task(priority: priority, operation: operation)
            return Disposables.create { task.cancel() }
        })
    }
}
