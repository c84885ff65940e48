import Dispatch
@_spi(RxNetworkKitInternals) import RxCore

/// Something with a deadline in a `DeadlineQueue`.
protocol DeadlineExpiring: AnyObject, Sendable {
    /// Called once, on the queue's dispatch queue, when the deadline has passed (unless removed).
    func deadlinePassed()
}

/// The whole-request deadlines of one transport, serviced by a single `DispatchSourceTimer`
/// armed for the earliest one: adding and removing a deadline costs a lock and a heap operation,
/// not a dispatch source per request.
///
/// The timer is re-armed only when a new deadline is earlier than the one it is armed for, or
/// when it fires; a removed deadline stays armed and the timer then fires once for nothing.
// @unchecked Sendable: mutable state lives in one LockedState; `timer` is immutable and thread-safe.
final class DeadlineQueue: @unchecked Sendable {
    typealias Token = UInt64

    private struct Entry {
        var deadline: UInt64
        var token: Token
        var target: any DeadlineExpiring
    }

    private struct State {
        /// A binary min-heap on `deadline`.
        var heap: [Entry] = []
        /// Where each token's entry is in `heap`.
        var positions: [Token: Int] = [:]
        var nextToken: Token = 1
        /// The uptime (ns) the timer is armed for; `.max` when it is not armed.
        var armedFor = UInt64.max
    }

    private let timer: DispatchSourceTimer
    private let state = LockedState<State>.make(State())

    /// Creates the queue; expired targets are called on `queue`.
    init(queue: DispatchQueue) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in
            self?.fire()
        }
        // Resumed at once (an inactive source must not be released); it fires only once scheduled.
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    /// Calls `target.deadlinePassed()` `seconds` from now unless removed first.
    ///
    /// - Returns: The token that removes the deadline.
    func add(after seconds: Double, target: any DeadlineExpiring) -> Token {
        let deadline = (DispatchTime.now() + seconds).uptimeNanoseconds
        return state.withLock { state in
            let token = state.nextToken
            state.nextToken &+= 1
            state.heap.append(Entry(deadline: deadline, token: token, target: target))
            state.positions[token] = state.heap.count - 1
            Self.siftUp(&state, from: state.heap.count - 1)
            if deadline < state.armedFor {
                state.armedFor = deadline
                timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .nanoseconds(0))
            }
            return token
        }
    }

    /// Removes a deadline; does nothing if it already passed or was removed.
    func remove(_ token: Token) {
        state.withLock { state in
            guard let index = state.positions.removeValue(forKey: token) else { return }
            Self.removeEntry(&state, at: index)
        }
    }

    /// On the timer's queue: takes the passed deadlines out, re-arms for the next one, then calls
    /// the targets (outside the lock).
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [any DeadlineExpiring] in
            var due: [any DeadlineExpiring] = []
            while let first = state.heap.first, first.deadline <= now {
                state.positions[first.token] = nil
                Self.removeEntry(&state, at: 0)
                due.append(first.target)
            }
            state.armedFor = .max
            if let next = state.heap.first {
                state.armedFor = next.deadline
                timer.schedule(deadline: DispatchTime(uptimeNanoseconds: next.deadline), leeway: .nanoseconds(0))
            }
            return due
        }
        for target in due {
            target.deadlinePassed()
        }
    }

    // MARK: Heap

    /// Removes the entry at `index` (its position is already forgotten).
    private static func removeEntry(_ state: inout State, at index: Int) {
        let last = state.heap.count - 1
        if index != last {
            state.heap.swapAt(index, last)
            state.positions[state.heap[index].token] = index
        }
        state.heap.removeLast()
        if index < state.heap.count {
            siftDown(&state, from: siftUp(&state, from: index))
        }
    }

    @discardableResult
    private static func siftUp(_ state: inout State, from start: Int) -> Int {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard state.heap[index].deadline < state.heap[parent].deadline else { break }
            swap(&state, index, parent)
            index = parent
        }
        return index
    }

    private static func siftDown(_ state: inout State, from start: Int) {
        var index = start
        let count = state.heap.count
        while true {
            var smallest = index
            let left = 2 * index + 1
            let right = left + 1
            if left < count, state.heap[left].deadline < state.heap[smallest].deadline { smallest = left }
            if right < count, state.heap[right].deadline < state.heap[smallest].deadline { smallest = right }
            guard smallest != index else { return }
            swap(&state, index, smallest)
            index = smallest
        }
    }

    private static func swap(_ state: inout State, _ a: Int, _ b: Int) {
        state.heap.swapAt(a, b)
        state.positions[state.heap[a].token] = a
        state.positions[state.heap[b].token] = b
    }
}
