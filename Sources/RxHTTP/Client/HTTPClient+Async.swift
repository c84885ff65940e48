import Foundation
import RxCore

extension HTTPClient {
    /// Sends `request` and returns its decoded `Response`: `let user = try await client.send(GetUser(id: 1))`.
    ///
    /// The same call as `client.rx.request(_:)` (retries, authentication, host protection, events):
    /// cancelling the task cancels the call.
    ///
    /// - Throws: `HTTPClientError`, or `CancellationError` when the task was cancelled first.
    /// - Note: Thread-safe.
    public func send<R: Request>(_ request: R) async throws -> R.Response where R.Response: Sendable {
        try await rx.request(request).value
    }

    /// Sends `request` and returns its decoded `Response` with the status, headers, URL and timing
    /// of the answer; see `send(_:)`.
    ///
    /// - Throws: `HTTPClientError`, or `CancellationError` when the task was cancelled first.
    /// - Note: Thread-safe.
    public func response<R: Request>(_ request: R) async throws -> DecodedResponse<R.Response> where R.Response: Sendable {
        try await rx.response(request).value
    }
}
