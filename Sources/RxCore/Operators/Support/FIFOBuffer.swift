/// A growable first-in, first-out ring buffer: amortized O(1) `append` and `removeFirst`, and no
/// allocation once it has grown to its working size.
///
/// Sinks keep their per-source buffers and pending-delivery queues in these, inside their
/// `LockedState`. It is a value type over class storage that it never shares: it is mutated in place
/// inside one state and only moved out of it (`takeAll()`), never copied (copying it and mutating
/// both copies would be a programming error; nothing in this module does that). Its layout does not depend on
/// `Element`, and its methods are always inlined: the operators run as unspecialized generic code,
/// where each call to a method of a generic struct would cost a type-metadata look-up.
///
/// - Note: Not thread-safe by itself; guard it with the lock of the state that holds it.
struct FIFOBuffer<Element> {
    private var storage: FIFOStorage<Element>?

    /// Creates an empty buffer; storage is allocated on the first `append`.
    init() {}

    /// The number of elements held.
    @inline(__always)
    var count: Int {
        storage?.count ?? 0
    }

    /// Whether the buffer holds no element.
    @inline(__always)
    var isEmpty: Bool {
        count == 0
    }

    /// Adds `element` at the back.
    @inline(__always)
    mutating func append(_ element: Element) {
        if let storage, storage.hasRoom {
            storage.append(element)
        } else {
            appendGrowing(element)
        }
    }

    /// The slow path of `append`: moves the elements into storage twice as large.
    @inline(never)
    private mutating func appendGrowing(_ element: Element) {
        let grown = FIFOStorage<Element>.make(capacity: Swift.max(4, (storage?.ringCapacity ?? 0) * 2))
        storage?.moveAll(into: grown)
        grown.append(element)
        storage = grown
    }

    /// Removes and returns the element at the front; the buffer must not be empty.
    @inline(__always)
    mutating func removeFirst() -> Element {
        guard let storage, storage.count > 0 else {
            preconditionFailure("removeFirst() on an empty FIFOBuffer")
        }
        return storage.removeFirst()
    }

    /// Returns (a copy of) the element at the front; the buffer must not be empty.
    @inline(__always)
    func peekFirst() -> Element {
        guard let storage, storage.count > 0 else {
            preconditionFailure("peekFirst() on an empty FIFOBuffer")
        }
        return storage.peekFirst()
    }

    /// Makes `element` the only element: the "latest value" use of the buffer.
    @inline(__always)
    mutating func replaceAll(with element: Element) {
        if let storage, storage.count == 1 {
            storage.replaceFirst(with: element)
        } else {
            removeAll()
            append(element)
        }
    }

    /// Removes and returns the element at the front, or returns nil if the buffer is empty.
    @inline(__always)
    mutating func popFirst() -> Element? {
        guard let storage, storage.count > 0 else { return nil }
        return storage.removeFirst()
    }

    /// What a drain loop's step delivers for a sink that queues elements ahead of a decided terminal
    /// event: the next element, or once none is left `terminal`'s event (delivered once: the loop
    /// stops for good after it).
    @inline(__always)
    mutating func nextEvent(before terminal: Termination?) -> Event<Element>? {
        if let element = popFirst() { return .next(element) }
        return terminal?.event()
    }

    /// Drops every element and the storage.
    @inline(__always)
    mutating func removeAll() {
        storage = nil
    }

    /// Empties the buffer and returns what it held: under a lock, so that the elements are released
    /// by the caller after unlocking (their deinit may run user code).
    @inline(__always)
    mutating func takeAll() -> FIFOBuffer<Element> {
        var taken = FIFOBuffer()
        swap(&taken, &self)
        return taken
    }
}

/// The header of a `FIFOStorage`: capacity is a power of two; live elements occupy
/// `head ..< head + count`, wrapping around.
struct FIFOStorageHeader {
    var capacity: Int
    var head: Int
    var count: Int
}

/// Ring storage of a `FIFOBuffer`: header and elements in one allocation.
///
/// The header is only reached through `withUnsafeMutablePointers`: `ManagedBuffer.header` is a
/// stored class property, and each access to it would pay for a dynamic exclusivity check.
final class FIFOStorage<Element>: ManagedBuffer<FIFOStorageHeader, Element> {
    static func make(capacity: Int) -> FIFOStorage<Element> {
        let buffer = create(minimumCapacity: capacity) { _ in
            FIFOStorageHeader(capacity: capacity, head: 0, count: 0)
        }
        Resources.incrementTotal()
        // `create` is declared to return the base class; the dynamic type is `Self`.
        return unsafeDowncast(buffer, to: FIFOStorage<Element>.self)
    }

    deinit {
        Resources.decrementTotal()
        withUnsafeMutablePointers { header, elements in
            let capacity = header.pointee.capacity
            var index = header.pointee.head
            for _ in 0..<header.pointee.count {
                (elements + index).deinitialize(count: 1)
                index = (index + 1) & (capacity - 1)
            }
        }
    }

    /// The number of elements held.
    var count: Int {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.count } }
    }

    /// The number of elements it can hold.
    var ringCapacity: Int {
        withUnsafeMutablePointerToHeader { $0.pointee.capacity }
    }

    /// Whether one more element fits.
    var hasRoom: Bool {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.count < $0.pointee.capacity } }
    }

    /// Appends; the caller checked there is room.
    @inline(__always)
    func append(_ element: Element) {
        withUnsafeMutablePointers { header, elements in
            let tail = (header.pointee.head + header.pointee.count) & (header.pointee.capacity - 1)
            (elements + tail).initialize(to: element)
            header.pointee.count += 1
        }
    }

    /// Removes the front element; the caller checked there is one.
    @inline(__always)
    func removeFirst() -> Element {
        withUnsafeMutablePointers { header, elements in
            let head = header.pointee.head
            header.pointee.head = (head + 1) & (header.pointee.capacity - 1)
            header.pointee.count -= 1
            return (elements + head).move()
        }
    }

    /// Returns a copy of the front element; the caller checked there is one.
    @inline(__always)
    func peekFirst() -> Element {
        withUnsafeMutablePointers { header, elements in
            elements[header.pointee.head]
        }
    }

    /// Replaces the front element; the caller checked there is one.
    @inline(__always)
    func replaceFirst(with element: Element) {
        withUnsafeMutablePointers { header, elements in
            elements[header.pointee.head] = element
        }
    }

    /// Moves every element, in order, into the empty `other`, which has room for them all.
    func moveAll(into other: FIFOStorage<Element>) {
        withUnsafeMutablePointers { header, elements in
            let capacity = header.pointee.capacity
            var index = header.pointee.head
            for _ in 0..<header.pointee.count {
                other.append((elements + index).move())
                index = (index + 1) & (capacity - 1)
            }
            header.pointee.count = 0
            header.pointee.head = 0
        }
    }
}
