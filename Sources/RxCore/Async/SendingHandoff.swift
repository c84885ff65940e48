/// Hands a value that need not be `Sendable` from the thread an Rx event arrives on to the one
/// continuation or stream that consumes it: the only unchecked transfer of the async bridge.
///
/// Rx elements are not required to be `Sendable` (RxSwift's are not), but a continuation or an
/// `AsyncThrowingStream` takes its value as `sending`, and a value received as an observer
/// parameter cannot prove to the compiler that it is disconnected.
///
/// Invariant (what the `nonisolated(unsafe)` below relies on): the observer that received the
/// value hands it to exactly one consumer, at once, and keeps no reference to it. The bridge thus
/// adds no sharing of its own; an element that is already shared (a reference type sent through
/// `share` or a replaying subject to several observers on several threads) is shared exactly as it
/// is with any Rx operator that crosses threads, such as `observe(on:)`.
struct SendingHandoff<Value> {
    private let value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// The value, as a `sending` result for its one consumer.
    consuming func take() -> sending Value {
        // Unchecked: see the invariant above.
        nonisolated(unsafe) let handed = value
        return handed
    }
}
