/// The per-source storage of one `zip` or `combineLatest` arity: one `FIFOBuffer` per source, and
/// how to take the values of one result from them. An arity is one small struct (see
/// `CombiningArities.swift`); `CombiningSink` does the rest.
protocol CombiningBuffers {
    /// The values of one result: a tuple for a fixed arity, an array for a collection.
    associatedtype Values

    /// Whether every source has an element for a result.
    var isReady: Bool { get }

    /// The values of the next result: for zip the first element of each source, removed; for
    /// combineLatest the latest of each, kept. Only called when `isReady`.
    mutating func take(_ mode: CombiningMode) -> Values

    /// Drops every buffered element.
    mutating func removeAll()
}

extension FIFOBuffer {
    /// Records an element a source sent: queued behind the others for zip, replacing the latest
    /// for combineLatest.
    @inline(__always)
    mutating func record(_ element: Element, _ mode: CombiningMode) {
        switch mode {
        case .zip: append(element)
        case .combineLatest: replaceAll(with: element)
        }
    }

    /// This source's part of the next result; see `CombiningBuffers.take(_:)`.
    @inline(__always)
    mutating func take(_ mode: CombiningMode) -> Element {
        switch mode {
        case .zip: removeFirst()
        case .combineLatest: peekFirst()
        }
    }
}
