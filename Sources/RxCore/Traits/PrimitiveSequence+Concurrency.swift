extension PrimitiveSequence {
    /// The one bridge of the traits to `async`: subscribes, and returns the element, `nil` for a
    /// completion without one, or throws the error — or `CancellationError` when the awaiting task
    /// is cancelled (which disposes the subscription) or the subscription is disposed first.
    func awaitOutcome() async throws -> sending Element? {
        let subscription = SingleAssignmentDisposable()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let once = ResumeOnce(continuation)
                subscription.setDisposable(PrimitiveSubscriber<Element>(
                    requiresElement: false,
                    onSuccess: { once.resume(returning: $0) },
                    onError: { once.resume(throwing: $0) },
                    onCompleted: { once.resume(returning: nil) },
                    onDisposed: { once.resume(throwing: CancellationError()) }
                ).subscribe(to: source))
            }
        } onCancel: {
            subscription.dispose()
        }
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
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
        get async throws { try await primitiveSequence.awaitElement() }
    }
    #else
    /// Awaits the element of this `Single`: subscribes, and returns the element or throws the error.
    ///
    /// - Returns: The element.
    /// - Throws: The `Single`'s error, or `CancellationError`.
    /// - Note: Thread-safe.
    public var value: Element {
        get async throws { try await primitiveSequence.awaitElement() }
    }
    #endif

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
            runningTask(detached: detached, priority: priority) {
                do {
                    observer.onSingleEvent(.success(try await work()))
                } catch {
                    observer.onError(error)
                }
            }
        })
    }
}

extension PrimitiveSequence where Trait == SingleTrait {
    func awaitElement() async throws -> sending Element {
        guard let element = try await awaitOutcome() else {
            throw RxError.noElements
        }
        return element
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// Awaits this `Maybe`: subscribes, and returns its element, `nil` if it completes without one,
    /// or throws its error.
    ///
    /// Cancelling the awaiting task disposes the subscription and throws `CancellationError`; so
    /// does a subscription disposed before it terminated.
    ///
    /// - Returns: The element, or `nil`.
    /// - Throws: The `Maybe`'s error, or `CancellationError`.
    /// - Note: Thread-safe.
    public var value: Element? {
        get async throws { try await primitiveSequence.awaitOutcome() }
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// Awaits this `Completable`: subscribes, and returns when it completes or throws its error.
    ///
    /// Cancelling the awaiting task disposes the subscription and throws `CancellationError`; so
    /// does a subscription disposed before it terminated.
    ///
    /// - Throws: The `Completable`'s error, or `CancellationError`.
    /// - Note: Thread-safe.
    public var value: Void {
        get async throws { _ = try await primitiveSequence.awaitOutcome() }
    }
}
