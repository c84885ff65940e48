import Foundation
@_spi(RxNetworkKitInternals) import RxCore
import Synchronization

/// The client's `suspend()`/`resume()` as an interceptor, the outermost built-in: while the client
/// is suspended, every attempt not yet sent waits here, in the order it came, until `resume()`;
/// a request that `bypassesSuspension` (a token refresh) passes. Cancelling a held call removes it.
final class SuspensionInterceptor: ImmediateInterceptor {
    private struct Held {
        let id: Int
        let request: HTTPTransportRequest
        let completion: @Sendable (HTTPInterceptorPreparation) -> Void
    }

    private struct State {
        var isSuspended = false
        var held: [Held] = []
        var nextID = 0
    }

    private let state = LockedState<State>.make(State())
    /// `state.isSuspended`, readable without the lock: every attempt of every call asks it.
    private let suspended = Atomic<Bool>(false)

    var isSuspended: Bool {
        suspended.load(ordering: .acquiring)
    }

    func suspend() {
        state.withLock { state in
            state.isSuspended = true
            suspended.store(true, ordering: .releasing)
        }
    }

    /// Lets new attempts through and releases the held ones, in the order they came, on this thread.
    func resume() {
        let released = state.withLock { state -> [Held] in
            state.isSuspended = false
            suspended.store(false, ordering: .releasing)
            defer { state.held = [] }
            return state.held
        }
        for held in released {
            held.completion(.proceed(held.request))
        }
    }

    func prepareAtOnce(_ request: HTTPTransportRequest, for call: HTTPCall) -> ImmediateDecision? {
        // A suspend racing this read is like one that came a moment later: the attempt was on its way.
        guard !call.plan.bypassesSuspension, suspended.load(ordering: .acquiring) else { return .pass }
        return nil
    }

    func prepare(
        _ request: HTTPTransportRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        let id = state.withLock { state -> Int? in
            guard state.isSuspended, !call.plan.bypassesSuspension else { return nil }
            state.nextID += 1
            state.held.append(Held(id: state.nextID, request: request, completion: completion))
            return state.nextID
        }
        guard let id else {
            completion(.proceed(request))
            return nil
        }
        call.noteHeld(.suspended)
        return Disposables.create { [weak self] in
            self?.state.withLock { $0.held.removeAll { $0.id == id } }
        }
    }
}
