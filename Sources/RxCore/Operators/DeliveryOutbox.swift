/// A FIFO of events waiting to go downstream, and who is delivering them.
///
/// Operators whose events come from more than one thread (upstream and a timer) keep one inside
/// their `LockedState`: they enqueue under the lock, and the caller that gets `true` back drains it
/// outside the lock (`Sink.drain(_:)`). So downstream gets one event at a time, in order, and no
/// observer is ever called under a lock.
struct DeliveryOutbox<Element> {
    private var events: [Event<Element>] = []
    private var head = 0
    private var isDelivering = false

    /// Whether nothing is waiting.
    var isEmpty: Bool {
        head == events.count
    }

    /// Appends `event`; true if the caller must now drain (nobody else is delivering).
    mutating func enqueue(_ event: Event<Element>) -> Bool {
        events.append(event)
        return claim()
    }

    /// Appends `event` without claiming delivery; follow with `claim()`.
    mutating func append(_ event: Event<Element>) {
        events.append(event)
    }

    /// Makes the caller the deliverer if events wait and nobody delivers.
    mutating func claim() -> Bool {
        guard !isDelivering, !isEmpty else { return false }
        isDelivering = true
        return true
    }

    /// The next event for the deliverer, or nil, which ends its turn.
    mutating func next() -> Event<Element>? {
        guard head < events.count else {
            isDelivering = false
            events.removeAll(keepingCapacity: events.capacity <= 64)
            head = 0
            return nil
        }
        let event = events[head]
        head += 1
        if head >= 64 && head * 2 >= events.count {
            events.removeFirst(head)
            head = 0
        }
        return event
    }

    /// Empties the outbox; returns what was waiting, to be released outside the lock.
    mutating func removeAll() -> [Event<Element>] {
        defer {
            events = []
            head = 0
        }
        return events
    }
}

extension Sink {
    /// Forwards one event; terminal events go through the exactly-once path.
    @inlinable
    final func forward(_ event: Event<Output>) {
        switch event {
        case .next(let element): forwardNext(element)
        case .error(let error): forwardError(error)
        case .completed: forwardCompleted()
        }
    }
}
