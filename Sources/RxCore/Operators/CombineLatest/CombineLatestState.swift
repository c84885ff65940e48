/// The bookkeeping every combineLatest sink shares, kept inside its `LockedState`.
///
/// CombineLatest completes when every source has completed, or as soon as a source completes
/// without having emitted (no combination can ever be formed then). An error from any source
/// terminates at once, after the combinations already formed.
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
    mutating func sourceCompleted(_ index: Int, hasValue: Bool) -> Bool {
        guard !isStopped else { return false }
        completedSources |= 1 << index
        return completedSources == allSources || !hasValue ? stop(with: .completed) : false
    }

    /// Records an upstream error; returns true if the caller must signal the drain loop.
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
