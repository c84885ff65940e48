/// The bookkeeping every zip sink shares, kept inside its `LockedState`: which sources completed,
/// whether the sink still accepts input, and the terminal event waiting for the drain loop.
///
/// Zip completes as soon as it can produce no further tuple: when a source has completed and its
/// buffer is empty (at once if it completes with an empty buffer, otherwise right after the tuple
/// that takes its last element). Elements left in the other buffers are dropped. An error from any
/// source terminates at once, after the tuples that were already complete.
struct ZipProgress {
    /// One bit per source (arity 2 to 4): set once that source completed.
    private var completedSources = 0
    /// Set once a terminal event is decided (or the sink is disposed): later input is dropped.
    private(set) var isStopped = false
    /// The decided terminal event, until the drain loop takes it.
    private var terminal: PendingTerminal?

    /// Records that source `index` completed; returns true if that ends the sequence, in which case
    /// the caller signals the drain loop.
    mutating func sourceCompleted(_ index: Int, bufferIsEmpty: Bool) -> Bool {
        guard !isStopped else { return false }
        completedSources |= 1 << index
        return bufferIsEmpty ? stop(with: .completed) : false
    }

    /// Records an upstream error; returns true if the caller must signal the drain loop.
    mutating func sourceFailed(_ error: Error) -> Bool {
        isStopped ? false : stop(with: .error(error))
    }

    /// After a tuple took an element from source `index`: true (and completion decided) if that
    /// source has completed and its buffer is now empty.
    mutating func checkExhausted(_ index: Int, bufferIsEmpty: Bool) -> Bool {
        guard bufferIsEmpty, !isStopped, completedSources & (1 << index) != 0 else { return false }
        return stop(with: .completed)
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
