import Foundation
import RxHTTP
import RxTesting
import Synchronization

/// The server side of the outbox tests: `POST /orders` applies an order once per
/// `Idempotency-Key` (a repeat gets the first answer again, as Stripe's API does) and remembers
/// which order numbers it applied under which key; a request without a key is refused (400).
final class IdempotentOrderServer: Sendable {
    struct Applied: Sendable, Equatable {
        var key: String
        var order: Int
    }

    private struct State {
        var applied: [Applied] = []
        var answers: [String: Int] = [:]
        var requests = 0
        /// Statuses to answer (before applying) to the next requests, in order.
        var failures: [Int] = []
        /// Seconds to hold an answer after applying (so that a test can kill the client then).
        var holdAfterApplying: TimeInterval = 0
        /// Called with each request's number (from 1) as it arrives; false answers 503 unapplied.
        var onReceived: (@Sendable (Int) -> Bool)?
        /// Called with the request's number once it applied an order, before the answer goes.
        var onApplied: (@Sendable (Int) -> Void)?
    }

    private let state = Mutex(State())

    func install(on server: LoopbackHTTPServer, path: String = "/orders") {
        server.route(.post, path) { [self] request in
            guard let key = request.header("Idempotency-Key"), !key.isEmpty else { return .status(400) }
            let order = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["order"] as? Int ?? -1
            let (number, onReceived) = state.withLock { state in
                state.requests += 1
                return (state.requests, state.onReceived)
            }
            if let onReceived, !onReceived(number) { return .status(503) }
            let (status, hold, onApplied) = state.withLock { state -> (Int, TimeInterval, (@Sendable (Int) -> Void)?) in
                if !state.failures.isEmpty { return (state.failures.removeFirst(), 0, nil) }
                if let earlier = state.answers[key] { return (earlier, 0, nil) }
                state.applied.append(Applied(key: key, order: order))
                state.answers[key] = 201
                return (201, state.holdAfterApplying, state.onApplied)
            }
            onApplied?(number)
            if hold > 0 { Thread.sleep(forTimeInterval: hold) }
            return .json("{\"order\":\(order)}", status: status)
        }
    }

    /// Every order applied, in order.
    var applied: [Applied] { state.withLock { $0.applied } }
    /// Requests received, repeats included.
    var requests: Int { state.withLock { $0.requests } }

    func failNext(with statuses: [Int]) {
        state.withLock { $0.failures += statuses }
    }

    func holdAnswers(after seconds: TimeInterval) {
        state.withLock { $0.holdAfterApplying = seconds }
    }

    /// Sets the hooks (nil removes them).
    func hooks(received: (@Sendable (Int) -> Bool)? = nil, applied: (@Sendable (Int) -> Void)? = nil) {
        state.withLock { state in
            state.onReceived = received
            state.onApplied = applied
        }
    }
}

/// An order an outbox keeps: a keyed POST of its number.
struct CreateOrder: Request {
    typealias Response = Data
    var order: Int
    var path: String { "/orders" }
    var method: HTTPMethod { .post }
    var idempotency: Idempotency { .keyed }
    var body: any RequestBody { JSONBody(["order": order]) }
}
