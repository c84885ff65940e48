import Dispatch
import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// One probe of `TCPConnectProbe`: resolution, parallel non-blocking connects, deadline.
///
/// Lifecycle: `start()` hops to the socket queue, arms the deadline timer and either uses the
/// literal address or asks the resolver queue; `connect(to:)` opens one socket per address and
/// watches each with a write source. `finish(_:)` (first success, last failure, deadline) and
/// `dispose()` both end the probe exactly once: they take every source out of the state under the
/// lock, then cancel them outside it; each write source's cancel handler closes its descriptor,
/// which is the only point where it is safe to close a descriptor libdispatch watches.
final class TCPProbeOperation: Cancelable {
    typealias Completion = @Sendable (Result<Void, Error>) -> Void

    // @unchecked Sendable: Dispatch sources are thread-safe objects; corelibs-Dispatch does not
    // mark its source protocols Sendable.
    private struct Attempt: @unchecked Sendable {
        let address: SocketAddress
        let source: DispatchSourceWrite
    }

    // @unchecked Sendable: a Dispatch timer source is thread-safe, as above.
    private struct DeadlineTimer: @unchecked Sendable {
        let source: DispatchSourceTimer
    }

    private struct State: Sendable {
        var isEnded = false
        var completion: Completion?
        /// The sockets still connecting, by descriptor.
        var attempts: [Int32: Attempt] = [:]
        var deadline: DeadlineTimer?
        var lastError: TCPProbeError?
    }

    private let host: String
    private let port: UInt16
    private let timeout: TimeInterval
    private let queue: DispatchQueue
    private let resolverQueue: DispatchQueue
    private let state: LockedState<State>

    init(
        host: String, port: UInt16, timeout: TimeInterval,
        queue: DispatchQueue, resolverQueue: DispatchQueue, completion: @escaping Completion
    ) {
        self.host = host
        self.port = port
        self.timeout = timeout.isNaN ? 0 : max(0, timeout)
        self.queue = queue
        self.resolverQueue = resolverQueue
        self.state = .make(State(completion: completion))
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    var isDisposed: Bool {
        state.withLock { $0.isEnded }
    }

    func start() {
        queue.async { self.begin() }
    }

    /// Ends the probe without calling the completion; closes every socket.
    func dispose() {
        end(with: nil)
    }

    // MARK: - Steps (socket queue unless noted)

    private func begin() {
        guard !isDisposed else { return }
        armDeadline()
        if host.utf8.contains(0) {
            finish(.failure(TCPProbeError(
                code: .resolutionFailed, systemError: 0, message: "cannot resolve a host name containing NUL"
            )))
        } else if let literal = SocketCalls.numericAddress(host: host, port: port) {
            connect(to: [literal])
        } else {
            resolverQueue.async { self.resolve() }
        }
    }

    private func armDeadline() {
        guard timeout.isFinite else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + RxTimeInterval.seconds(timeout).dispatchInterval, leeway: .milliseconds(1))
        timer.setEventHandler { [self] in
            finish(.failure(TCPProbeError.timedOut(host: host, port: port, after: timeout)))
        }
        timer.resume()
        let cancelNow = state.withLock { state -> Bool in
            if state.isEnded { return true }
            state.deadline = DeadlineTimer(source: timer)
            return false
        }
        if cancelNow { Self.cancel(timer) }
    }

    /// On the resolver queue: the one blocking call, skipped if the probe already ended.
    private func resolve() {
        guard !isDisposed else { return }
        let result = SocketCalls.resolve(host: host, port: port)
        queue.async { [self] in
            switch result {
            case .success(let addresses):
                connect(to: addresses)
            case .failure(let error):
                finish(.failure(error))
            }
        }
    }

    private func connect(to addresses: [SocketAddress]) {
        guard !isDisposed else { return }
        guard !addresses.isEmpty else {
            finish(.failure(TCPProbeError(
                code: .resolutionFailed, systemError: 0, message: "\(host) has no IPv4 or IPv6 address"
            )))
            return
        }
        for address in addresses {
            let descriptor: Int32
            switch SocketCalls.openNonBlockingStreamSocket(family: address.family) {
            case .opened(let opened):
                descriptor = opened
            case .failed(let code):
                record(TCPProbeError(
                    code: .socketFailed, systemError: code,
                    message: "cannot open a socket for \(address): \(SocketCalls.errorMessage(code))"
                ))
                continue
            }
            switch SocketCalls.startConnect(descriptor, to: address) {
            case .connected:
                SocketCalls.close(descriptor)
                finish(.success(()))
                return
            case .failed(let code):
                SocketCalls.close(descriptor)
                record(connectError(address, code))
            case .inProgress:
                if !watch(descriptor, connectingTo: address) { return }
            }
        }
        let failure = state.withLock { state -> TCPProbeError? in
            guard !state.isEnded, state.attempts.isEmpty else { return nil }
            return state.lastError
        }
        if let failure { finish(.failure(failure)) }
    }

    /// Watches a connecting socket; false if the probe ended meanwhile (the socket is then closed).
    private func watch(_ descriptor: Int32, connectingTo address: SocketAddress) -> Bool {
        let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [self] in
            becameWritable(descriptor)
        }
        source.setCancelHandler {
            SocketCalls.close(descriptor)
        }
        // Handlers run on `queue`, where we are now, so none can run before the state below is set.
        source.resume()
        let added = state.withLock { state -> Bool in
            guard !state.isEnded else { return false }
            state.attempts[descriptor] = Attempt(address: address, source: source)
            return true
        }
        if !added { Self.cancel(source) }
        return added
    }

    private func becameWritable(_ descriptor: Int32) {
        // The descriptor is still open: only this source's cancel handler closes it, and that runs
        // on this same serial queue after the source stops delivering events.
        let code = SocketCalls.pendingError(descriptor)
        if code == 0 {
            finish(.success(()))
            return
        }
        let outcome = state.withLock { state -> (source: DispatchSourceWrite, failure: TCPProbeError?)? in
            guard !state.isEnded, let attempt = state.attempts.removeValue(forKey: descriptor) else { return nil }
            let error = connectError(attempt.address, code)
            state.lastError = error
            return (attempt.source, state.attempts.isEmpty ? error : nil)
        }
        guard let outcome else { return }
        Self.cancel(outcome.source)
        if let failure = outcome.failure { finish(.failure(failure)) }
    }

    private func record(_ error: TCPProbeError) {
        state.withLock { $0.lastError = error }
    }

    private func connectError(_ address: SocketAddress, _ code: Int32) -> TCPProbeError {
        TCPProbeError(
            code: .connectFailed, systemError: code,
            message: "connect to \(address) failed: \(SocketCalls.errorMessage(code))"
        )
    }

    private func finish(_ result: Result<Void, Error>) {
        end(with: result)
    }

    /// Ends the probe once: releases every source (closing the sockets), then reports `result`
    /// (nil when cancelled) outside the lock.
    private func end(with result: Result<Void, Error>?) {
        let taken = state.withLock { state -> (Completion?, [Attempt], DeadlineTimer?)? in
            guard !state.isEnded else { return nil }
            state.isEnded = true
            defer {
                state.completion = nil
                state.attempts = [:]
                state.deadline = nil
            }
            return (state.completion, Array(state.attempts.values), state.deadline)
        }
        guard let (completion, attempts, deadline) = taken else { return }
        for attempt in attempts {
            Self.cancel(attempt.source)
        }
        if let deadline { Self.cancel(deadline.source) }
        if let result { completion?(result) }
    }

    /// Cancels a source and drops its event handler (and what it captures) at once.
    private static func cancel(_ source: DispatchSourceProtocol) {
        source.setEventHandler(handler: nil)
        source.cancel()
    }
}
