import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// Passes circuit breaker changes from the host gates to whoever listens (the client's events);
/// costs a lock read when nobody does.
// @unchecked Sendable: the listener lives in one LockedState.
final class CircuitChangeRelay: @unchecked Sendable {
    private let listener = LockedState<(@Sendable (Origin, CircuitState) -> Void)?>.make(nil)

    func send(_ origin: Origin, _ state: CircuitState) {
        listener.withLock { $0 }?(origin, state)
    }

    func listen(_ body: @escaping @Sendable (Origin, CircuitState) -> Void) {
        listener.withLock { $0 = body }
    }
}
