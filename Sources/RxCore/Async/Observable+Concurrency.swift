extension ObservableConvertibleType {
    /// The sequence as an `AsyncThrowingStream`, for `for try await element in observable.values`.
    ///
    /// Reading the property subscribes at once (not when iteration starts). The stream finishes
    /// when the sequence completes, throws its error, or throws `CancellationError` if the
    /// subscription was disposed first. Ending the iteration early (a `break`, a cancelled
    /// consuming task, dropping the stream) disposes the subscription.
    ///
    /// - Note: Buffering is unbounded: a source that outpaces the consumer grows the buffer; apply
    ///   backpressure upstream (or throttle/sample) if that can happen. Elements are yielded on the
    ///   source's thread and read on the consumer's. Thread-safe.
    public var values: AsyncThrowingStream<Element, Error> {
        AsyncThrowingStream(bufferingPolicy: .unbounded) { continuation in
            let subscription = asObservable().subscribe(
                onNext: { _ = continuation.yield(SendingHandoff($0).take()) },
                onError: { continuation.finish(throwing: $0) },
                onCompleted: { continuation.finish() },
                // A no-op when the stream already finished: only the first finish counts.
                onDisposed: { continuation.finish(throwing: CancellationError()) }
            )
            continuation.onTermination = { _ in subscription.dispose() }
        }
    }
}

extension AsyncSequence where Self: Sendable {
    /// An `Observable` that iterates this sequence in a new task for each subscription.
    ///
    /// - Parameters:
    ///   - detached: Iterate in a detached task.
    ///   - priority: The priority of the task.
    /// - Returns: A cold `Observable` of the sequence's elements, completing when the sequence
    ///   ends and failing with the error it throws. Disposing the subscription cancels the task.
    /// - Note: Events arrive on the task's thread (the global executor). The sequence must be
    ///   `Sendable` because each subscription iterates it from its own task.
    public func asObservable(detached: Bool = false, priority: TaskPriority? = nil) -> Observable<Element> {
        Observable.create { observer in
            runningTask(detached: detached, priority: priority) {
                do {
                    for try await element in self {
                        observer.onNext(element)
                    }
                    observer.onCompleted()
                } catch {
                    observer.onError(error)
                }
            }
        }
    }
}

/// Starts `operation` in a new task (detached or not) and returns the disposable that cancels it:
/// the subscription of every sequence made from async work.
func runningTask(
    detached: Bool, priority: TaskPriority?, _ operation: @escaping @Sendable () async -> Void
) -> Disposable {
    let task = detached
        ? Task.detached(priority: priority, operation: operation)
        : Task(priority: priority, operation: operation)
    return Disposables.create { task.cancel() }
}
