// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import RxHTTP

/// Turns what AsyncHTTPClient and SwiftNIO report into `HTTPClientError`s with a truthful `phase`.
enum AsyncHTTPClientErrors {
    /// The client error for a failure of one exchange.
    ///
    /// - Parameters:
    ///   - error: What AsyncHTTPClient reported.
    ///   - url: The request's URL.
    ///   - requestHeadSent: Whether the request head had been written: before it, nothing reached
    ///     the server (`.notSent`).
    ///   - response: The status and headers, if a response head had arrived (`.responded`).
    static func classify(
        _ error: any Error, url: URL?, requestHeadSent: Bool, response: (statusCode: Int, headers: RxHTTP.HTTPHeaders)?
    ) -> RxHTTP.HTTPClientError {
        if let error = error as? RxHTTP.HTTPClientError {
            return error
        }
        let (code, message) = describe(error)
        let phase: RxHTTP.HTTPClientError.Phase
        if response != nil {
            phase = .responded
        } else if code == .invalidRequest || !requestHeadSent {
            phase = .notSent
        } else {
            phase = .sentWithoutResponse
        }
        return RxHTTP.HTTPClientError(
            code, message: message, statusCode: response?.statusCode, url: url, underlying: error,
            headers: response?.headers, phase: phase
        )
    }

    private static func describe(_ error: any Error) -> (RxHTTP.HTTPClientError.Code, String) {
        if let error = error as? AsyncHTTPClient.HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
                 .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return (.timedOut, "the server did not answer in time (\(error.shortDescription))")
            case .cancelled:
                return (.cancelled, "the transport cancelled the request")
            case .remoteConnectionClosed:
                return (.transport, "the connection was lost")
            case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath, .traceRequestWithBody:
                return (.invalidRequest, "the transport rejected the request (\(error.shortDescription))")
            case .alreadyShutdown:
                return (.transport, "the AsyncHTTPClient was shut down")
            case .bodyLengthMismatch, .identityCodingIncorrectlyPresent, .contentLengthMissing:
                return (.invalidResponse, "the server's answer broke HTTP framing (\(error.shortDescription))")
            default:
                if error.shortDescription.hasPrefix("Unsupported scheme") || error.shortDescription.hasPrefix("Invalid header") {
                    return (.invalidRequest, "the transport rejected the request (\(error.shortDescription))")
                }
                return (.transport, "the connection failed (\(error.shortDescription))")
            }
        }
        if let error = error as? HTTPParserError {
            // The connection ended inside the answer (a server killed, a stream dropped): lost, as
            // URLSession says too, and worth reconnecting — not garbage.
            if case .invalidEOFState = error {
                return (.transport, "the connection was lost before the answer ended")
            }
            return (.invalidResponse, "the server's answer is not a valid HTTP/1.x response")
        }
        if error is NIOHTTPDecompression.DecompressionError {
            return (.invalidResponse, "the server's compressed body could not be decoded")
        }
        if let error = error as? NIOConnectionError {
            if error.dnsAAAAError != nil || error.dnsAError != nil, error.connectionErrors.isEmpty {
                return (.transport, "the host name could not be resolved")
            }
            return (.transport, "the connection was refused")
        }
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
            return (.transport, "the connection was refused")
        }
        if error is ChannelError {
            return (.transport, "the connection was lost")
        }
        return (.transport, "the connection failed")
    }
}
#endif
