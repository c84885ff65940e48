import Foundation
import RxCore

/// Sends one `URLRequest` and hands back the whole response: the seam between `HTTPClient` and
/// the network, so that a faster engine, or `StubTransport` in tests, can be plugged in.
///
/// Contract: `completion` is called at most once, with the response (any status code) or an
/// error; never after the returned disposable was disposed — disposing cancels the exchange.
/// The transport enforces `request.timeoutInterval` over the whole exchange and fails with
/// `HTTPClientError(.timedOut)` when it passes. Other errors may be system errors (`URLError`
/// codes in `NSURLErrorDomain`); the client maps them to `.transport`, `.timedOut` or `.cancelled`.
///
/// - Note: Implementations are thread-safe; `completion` may run on any thread.
public protocol HTTPTransport: Sendable {
    /// Starts sending `request`.
    ///
    /// - Parameters:
    ///   - request: The request, fully built and validated.
    ///   - completion: Receives the response or the error, at most once.
    /// - Returns: Disposing it cancels the exchange; `completion` is then not called.
    func send(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable
}
