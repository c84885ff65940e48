/// The bookkeeping every `zip` and `combineLatest` sink shares, kept inside its `LockedState`: how
/// many sources completed, whether the sink still accepts input, and the terminal event waiting
/// for the drain loop.
///
/// Both complete as RxSwift's do: once every source has completed, or when an element arrives that
/// no result can ever use because every other source has completed (with nothing buffered for zip,
/// one of them without a value for combineLatest). Until then the live sources stay subscribed.
/// Elements left in buffers are dropped. An error from any source terminates at once, after the
/// results already formed.
struct CombiningProgress {
    private let arity: Int
    /// Each source reports its completion once (its observer drops everything after a terminal
    /// event) and sends nothing after it, so a count is enough.
    private var completedSources = 0
    /// Set once a terminal event is decided (or the sink is disposed): later input is dropped.
    private(set) var isStopped = false
    /// The decided terminal event, until the drain loop takes it.
    private var terminal: Termination?

    init(arity: Int) {
        self.arity = arity
    }

    /// Records that a source completed; returns true if that ends the sequence, in which case the
    /// caller signals the drain loop.
    mutating func sourceCompleted() -> Bool {
        guard !isStopped else { return false }
        completedSources += 1
        return completedSources == arity ? stop(with: .completed) : false
    }

    /// Records that a source sent an element no result can use yet; returns true if that ends the
    /// sequence (every other source completed, so none ever will).
    mutating func elementFoundNoPartner() -> Bool {
        guard !isStopped, completedSources == arity - 1 else { return false }
        return stop(with: .completed)
    }

    /// Records an error from a source; returns true if that ends the sequence.
    mutating func sourceFailed(_ error: Error) -> Bool {
        isStopped ? false : stop(with: .error(error))
    }

    /// Hands the decided terminal event to the drain loop, once.
    mutating func takeTerminal() -> Termination? {
        defer { terminal = nil }
        return terminal
    }

    /// Stops accepting input without a terminal event (on dispose).
    mutating func cancel() {
        isStopped = true
        terminal = nil
    }

    private mutating func stop(with event: Termination) -> Bool {
        isStopped = true
        terminal = event
        return true
    }
}

/// What an element's arrival decided, under a zip or combineLatest sink's lock.
enum CombiningClaim {
    /// Nothing for this caller to send (no result is ready, or another thread is delivering).
    case none
    /// This caller moved a result's values into its slots and must send them.
    case tuple
    /// The element can never be paired: the sequence completes; signal the drain loop.
    case ended
}
