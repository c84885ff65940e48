extension ObservableType where Element: Equatable & SendableMetatype {
    /// Drops elements equal to the one before them.
    ///
    /// - Returns: The source without consecutive duplicates.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func distinctUntilChanged() -> Observable<Element> {
        distinctUntilChanged({ $0 }, comparer: { $0 == $1 })
    }
}

extension ObservableType {
    /// Drops elements whose key equals the key of the element before them.
    ///
    /// - Parameter keySelector: Extracts the compared key; an error it throws terminates the
    ///   sequence with it and disposes the source.
    /// - Returns: The source without consecutive elements of equal key.
    /// - Note: `keySelector` runs on the thread the element arrives on. Thread-safe.
    public func distinctUntilChanged<Key: Equatable & SendableMetatype>(
        _ keySelector: @escaping @Sendable (Element) throws -> Key
    ) -> Observable<Element> {
        distinctUntilChanged(keySelector, comparer: { $0 == $1 })
    }

    /// Drops elements that `comparer` finds equal to the element before them.
    ///
    /// - Parameter comparer: Returns true when two consecutive elements count as equal; an error it
    ///   throws terminates the sequence with it and disposes the source.
    /// - Returns: The source without consecutive duplicates.
    /// - Note: `comparer` runs on the thread the element arrives on. Thread-safe.
    public func distinctUntilChanged(_ comparer: @escaping @Sendable (Element, Element) throws -> Bool) -> Observable<Element> {
        distinctUntilChanged({ $0 }, comparer: comparer)
    }

    /// Drops elements whose key `comparer` finds equal to the key of the element before them.
    ///
    /// - Parameters:
    ///   - keySelector: Extracts the compared key.
    ///   - comparer: Returns true when two consecutive keys count as equal.
    ///   An error thrown by either terminates the sequence with it and disposes the source.
    /// - Returns: The source without consecutive duplicates.
    /// - Note: The closures run on the thread the element arrives on. Thread-safe.
    public func distinctUntilChanged<Key>(
        _ keySelector: @escaping @Sendable (Element) throws -> Key,
        comparer: @escaping @Sendable (Key, Key) throws -> Bool
    ) -> Observable<Element> {
        SinkObservable(source: asObservable()) {
            DistinctUntilChangedSink(keySelector: keySelector, comparer: comparer, downstream: $0)
        }
    }

    /// Drops elements whose property at `keyPath` equals that of the element before them.
    ///
    /// - Parameter keyPath: The compared property.
    /// - Returns: The source without consecutive elements of equal property.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func distinctUntilChanged<Property: Equatable & SendableMetatype>(
        at keyPath: KeyPath<Element, Property> & Sendable
    ) -> Observable<Element> {
        distinctUntilChanged({ $0[keyPath: keyPath] }, comparer: { $0 == $1 })
    }
}

// @unchecked Sendable: `lastKey` is touched only by upstream events, which arrive serialized.
final class DistinctUntilChangedSink<Element, Key>: Sink<Element, Element>, @unchecked Sendable {
    private let keySelector: @Sendable (Element) throws -> Key
    private let comparer: @Sendable (Key, Key) throws -> Bool
    private var lastKey: Key?

    init(
        keySelector: @escaping @Sendable (Element) throws -> Key,
        comparer: @escaping @Sendable (Key, Key) throws -> Bool,
        downstream: ObserverNode<Element>
    ) {
        self.keySelector = keySelector
        self.comparer = comparer
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        do {
            let key = try keySelector(element)
            if let lastKey, try comparer(lastKey, key) {
                return
            }
            lastKey = key
        } catch {
            forwardError(error)
            return
        }
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
