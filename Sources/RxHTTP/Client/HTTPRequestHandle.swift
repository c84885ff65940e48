import RxCore

/// The handle of a callback-style request: cancel it to stop the request.
///
/// Cancelling (or disposing, the same thing) a request that has not finished removes it from the
/// hold queue of a suspended client or cancels its transport task, and then calls its completion
/// once with `HTTPClientError(.cancelled)` — as Alamofire does, so that code waiting for the
/// callback never hangs. (The reactive API, `client.rx`, delivers nothing after dispose.)
/// Cancelling a finished request does nothing.
///
/// - Note: Thread-safe.
public final class HTTPRequestHandle: Cancelable {
    private let call: any CancellableCall

    init(call: any CancellableCall) {
        self.call = call
    }

    /// Cancels the request; its completion then receives `.cancelled` (unless it already finished).
    public func cancel() {
        call.cancel()
    }

    /// Same as `cancel()`.
    public func dispose() {
        call.cancel()
    }

    /// Whether the request was cancelled before it finished.
    public var isDisposed: Bool {
        call.isCancelled
    }

    /// Whether the request was cancelled before it finished.
    public var isCancelled: Bool {
        call.isCancelled
    }
}

/// The part of `HTTPCall` a handle needs.
protocol CancellableCall: Sendable {
    func cancel()
    var isCancelled: Bool { get }
}


extension HTTPCall: CancellableCall, ClientCall {}
