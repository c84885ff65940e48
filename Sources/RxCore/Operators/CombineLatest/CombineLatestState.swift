/// The bookkeeping every combineLatest sink shares, kept inside its `LockedState`.
///
/// CombineLatest completes as RxSwift's does: when every source has completed, or when an element
/// arrives that can never be combined because every other source has completed (one of them
/// without a value). Until then the sources that have not completed stay subscribed. An error from
/// any source terminates at once, after the combinations already formed.
struct CombineLatestProgress {
    private let allSources: Int
    /// One bit per source (arity 2 to 4): set once that source completed.
    private var completedSources = 0
    /// Set once a terminal event is decided (or the sink is disposed): later input is dropped.
    private(set) var isStopped = false
    /// The decided terminal event, until the drain loop takes it.
    private var terminal: PendingTerminal?

    init(arity: Int) {
        allSources = (1 << arity) - 1
    }

    /// Records that source `index` completed; returns true if that ends the sequence, in which case
    /// the caller signals the drain loop.
    mutating func sourceCompleted(_ index: Int) -> Bool {
        guard !isStopped else { return false }
        completedSources |= 1 << index
        return completedSources == allSources ? stop(with: .completed) : false
    }

    /// Records that source `index` sent an element while some source has no value yet; returns
    /// true if that ends the sequence (every other source completed, so no combination will come).
    mutating func elementFoundNoCombination(at index: Int) -> Bool {
        guard !isStopped, completedSources | (1 << index) == allSources else { return false }
        return stop(with: .completed)
    }

    mutating func sourceFailed(_ error: Error) -> Bool {
        isStopped ? false : stop(with: .error(error))
    }

    /// Hands the decided terminal event to the drain loop, once.
    mutating func takeTerminal() -> PendingTerminal? {
        defer { terminal = nil }
        return terminal
    }

    /// Stops accepting input without a terminal event (on dispose).
    mutating func cancel() {
        isStopped = true
        terminal = nil
    }

    private mutating func stop(with event: PendingTerminal) -> Bool {
        isStopped = true
        terminal = event
        return true
    }
}
