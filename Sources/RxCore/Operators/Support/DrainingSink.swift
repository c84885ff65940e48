/// The base of every sink that delivers from more than one thread: several upstreams (zip,
/// combineLatest, merge, flatMap...), or upstream and a timer (delay, debounce, throttle,
/// observe(on:), take(until:)). It serializes the calls to `downstream` on its `DrainLoop`
/// without holding a lock while making them.
///
/// Each sink keeps its shared state in one `LockedState`; the lock is held only to update that
/// state and to decide what to deliver, never while calling downstream. Whoever makes something
/// deliverable records it in that state and calls `signal()`; the owner of the loop's right calls
/// `drainOne()` until it finds nothing. An event sent by downstream's own reaction is queued and
/// delivered after the current call returns; once the terminal event is delivered nothing reaches
/// downstream again.
///
/// Sinks whose ordering is decided under their lock (zip, combineLatest) claim the right inside
/// that same critical section (`tryClaimEmission()`), so an uncontended element costs one lock
/// acquisition; merge claims it without the lock at all.
// @unchecked Sendable: the drain loop's counter is atomic; subclasses keep their state in a LockedState.
class DrainingSink<Input, Output>: Sink<Input, Output>, @unchecked Sendable {
    /// Who delivers; see `DrainLoop`.
    let drainLoop = DrainLoop()

    /// Takes the next pending item under the subclass's lock and delivers it after unlocking.
    ///
    /// Called only by the owner of the loop's right. Subclasses override it.
    func drainOne() -> DrainStep {
        .idle
    }

    /// Records that something became deliverable; runs the drain loop if no one else does.
    @inline(__always)
    final func signal() {
        if drainLoop.signal() {
            drain(missed: 1)
        }
    }

    /// Takes the emission right if no one holds it and nothing is pending: the fast path.
    @inline(__always)
    final func tryClaimEmission() -> Bool {
        drainLoop.tryClaim()
    }

    /// Gives the emission right back after a direct delivery, draining whatever arrived meanwhile.
    @inline(__always)
    final func releaseEmission() {
        let missed = drainLoop.release()
        if missed != 0 {
            drain(missed: missed)
        }
    }

    /// The drain loop; the caller owns the emission right and has not yet accounted for `missed`
    /// signals.
    final func drain(missed: Int) {
        drainLoop.run(missed: missed) { drainOne() }
    }

    /// Delivers an event a subclass took from its queue: the whole of `drainOne()` for the sinks that
    /// queue `Event`s (nil: nothing was queued).
    final func deliver(_ event: Event<Output>?) -> DrainStep {
        switch event {
        case .none:
            return .idle
        case .next(let element):
            forwardNext(element)
            return .delivered
        case .error(let error):
            forwardError(error)
            return .finished
        case .completed:
            forwardCompleted()
            return .finished
        }
    }
}

/// One uninitialized stack slot through which a value leaves a critical section.
///
/// Sinks run as unspecialized generic code, where returning an `Optional<Element>` (or a tuple)
/// from a lock closure costs a type-metadata look-up dearer than the lock itself; a slot typed by
/// the sink's own generic parameter costs none.
typealias ValueSlot<Value> = UnsafeMutableBufferPointer<Value>
