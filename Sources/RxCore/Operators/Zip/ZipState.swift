/// The bookkeeping every zip sink shares, kept inside its `LockedState`: which sources completed,
/// whether the sink still accepts input, and the terminal event waiting for the drain loop.
///
/// Zip completes as RxSwift's does: once every source has completed, or when an element arrives
/// that can never be paired because every other source has completed with an empty buffer. Until
/// then the sources that have not completed stay subscribed. Elements left in buffers are dropped.
/// An error from any source terminates at once, after the tuples that were already complete.
struct ZipProgress {
    /// One bit per source (arity 2 to 4): set once that source completed.
    private var completedSources = 0
    /// The value of `completedSources` once every source completed.
    private let allSources: Int
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

    /// Records that source `index` sent an element that found no partner in some other buffer;
    /// returns true if that ends the sequence (every other source completed, so it never will).
    mutating func elementFoundNoPartner(at index: Int) -> Bool {
        guard !isStopped, completedSources | (1 << index) == allSources else { return false }
        return stop(with: .completed)
    }

    /// Records an error from a source; returns true if that ends the sequence.
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

/// What an element's arrival decided, under a zip sink's lock.
enum ZipClaim {
    /// No tuple for this caller to send (none complete, or another thread is draining).
    case none
    /// This caller took a tuple into its slots and must send it.
    case tuple
    /// The element can never be paired: the sequence completes; signal the drain loop.
    case ended
}
