import Foundation
import RxCore
import RxHTTP

/// A canned answer of `StubTransport`: a response or an error, after an optional delay.
///
/// - Note: A value type; `Sendable`.
public struct StubResponse: Sendable {
    /// The response or the error delivered.
    public var result: Result<HTTPResponse, HTTPClientError>
    /// How long after the send it is delivered; `.zero` delivers during `send`.
    public var delay: RxTimeInterval

    /// Creates a canned answer.
    ///
    /// - Parameters:
    ///   - result: The response or the error.
    ///   - delay: How long after the send it arrives.
    public init(result: Result<HTTPResponse, HTTPClientError>, delay: RxTimeInterval = .zero) {
        self.result = result
        self.delay = delay
    }

    /// A response with `statusCode`, `body` and `headers`.
    public static func status(
        _ statusCode: Int, body: Data = Data(), headers: [String: String] = [:], delay: RxTimeInterval = .zero
    ) -> StubResponse {
        StubResponse(result: .success(HTTPResponse(statusCode: statusCode, headers: headers, body: body)), delay: delay)
    }

    /// A JSON response from literal text, `Content-Type: application/json`.
    public static func json(_ text: String, statusCode: Int = 200, delay: RxTimeInterval = .zero) -> StubResponse {
        .status(statusCode, body: Data(text.utf8), headers: ["Content-Type": "application/json"], delay: delay)
    }

    /// A JSON response encoded from `value`, `Content-Type: application/json`; an unencodable
    /// value yields a 500 with no body.
    public static func json<Value: Encodable>(
        encoding value: Value, statusCode: Int = 200, delay: RxTimeInterval = .zero
    ) -> StubResponse {
        guard let data = try? JSONEncoder().encode(value) else { return .status(500, delay: delay) }
        return .status(statusCode, body: data, headers: ["Content-Type": "application/json"], delay: delay)
    }

    /// The connection was refused: a `.transport` failure that was never sent (`phase == .notSent`),
    /// which the client may retry for any method.
    public static func connectionRefused(delay: RxTimeInterval = .zero) -> StubResponse {
        .failure(HTTPClientError(.transport, message: "stub: the connection was refused", phase: .notSent), delay: delay)
    }

    /// The connection dropped after the request went out: a `.transport` failure in phase
    /// `.sentWithoutResponse`, which the client retries only for idempotent or keyed requests.
    public static func connectionLost(delay: RxTimeInterval = .zero) -> StubResponse {
        .failure(HTTPClientError(.transport, message: "stub: the connection was lost", phase: .sentWithoutResponse), delay: delay)
    }

    /// A failure, e.g. `.failure(HTTPClientError(.transport))`.
    public static func failure(_ error: HTTPClientError, delay: RxTimeInterval = .zero) -> StubResponse {
        StubResponse(result: .failure(error), delay: delay)
    }
}
