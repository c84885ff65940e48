import Synchronization

/// A continuation that is resumed at most once, whichever of success, failure and dispose comes
/// first from whichever thread: the later calls are ignored instead of trapping.
final class ResumeOnce<Value>: Sendable {
    private let continuation: CheckedContinuation<Value, Error>
    private let resumed = Atomic<Bool>(false)

    init(_ continuation: CheckedContinuation<Value, Error>) {
        self.continuation = continuation
    }

    /// Resumes with `value` unless already resumed.
    func resume(returning value: Value) {
        guard !resumed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        continuation.resume(returning: SendingHandoff(value).take())
    }

    /// Resumes by throwing `error` unless already resumed.
    func resume(throwing error: Error) {
        guard !resumed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        continuation.resume(throwing: error)
    }
}
