/// The last `capacity` elements, oldest first; a ring once full, so appending is O(1).
struct ReplayBuffer<Element> {
    let capacity: Int
    private var storage: ContiguousArray<Element> = []
    /// Index of the oldest element once the buffer is full.
    private var head = 0

    /// A buffer keeping at most `capacity` elements (`Int.max`: all of them; negative: none).
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int {
        storage.count
    }

    mutating func append(_ element: Element) {
        guard capacity > 0 else { return }
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[head] = element
            head = head + 1 == capacity ? 0 : head + 1
        }
    }

    mutating func removeAll() {
        storage = []
        head = 0
    }

    /// The elements as `next` events, oldest first.
    func events() -> ContiguousArray<Event<Element>> {
        var events = ContiguousArray<Event<Element>>()
        events.reserveCapacity(storage.count + 1)
        for index in storage.indices {
            events.append(.next(storage[(head + index) % storage.count]))
        }
        return events
    }
}
