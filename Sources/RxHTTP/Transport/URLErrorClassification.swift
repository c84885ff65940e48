import Foundation

/// Turns the errors of a transport (URLSession's `NSURLErrorDomain` codes, or anything else) into
/// `HTTPClientError`s with a truthful `phase`, wrapping a copy of the system error whose URLs are
/// redacted.
enum URLErrorClassification {
    /// How far a request got when it failed with NSURLErrorDomain `code`.
    ///
    /// Not sent: the connection was never made (refused, no such host, DNS, offline, a URL the
    /// system rejected, a TLS handshake that failed before the request was written). Anything else
    /// may have reached the server.
    static func phase(ofFailure code: Int, responded: Bool) -> HTTPClientError.Phase {
        if responded { return .responded }
        switch code {
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed,
             NSURLErrorNotConnectedToInternet, NSURLErrorBadURL, NSURLErrorSecureConnectionFailed,
             NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasBadDate,
             NSURLErrorServerCertificateNotYetValid, NSURLErrorServerCertificateHasUnknownRoot,
             NSURLErrorClientCertificateRejected, NSURLErrorClientCertificateRequired,
             NSURLErrorAppTransportSecurityRequiresSecureConnection, NSURLErrorInternationalRoamingOff,
             NSURLErrorDataNotAllowed, NSURLErrorCallIsActive:
            return .notSent
        default:
            return .sentWithoutResponse
        }
    }

    /// The client error for a transport failure.
    ///
    /// - Parameters:
    ///   - error: What the transport reported.
    ///   - url: The request's URL.
    ///   - response: The response head, if one had arrived (the body was then cut short).
    static func classify(_ error: any Error, url: URL?, response: HTTPResponse? = nil) -> HTTPClientError {
        if let error = error as? HTTPClientError {
            return error
        }
        let nsError = error as NSError
        let redacted = Redaction.standard.error(error)
        guard nsError.domain == NSURLErrorDomain else {
            return HTTPClientError(
                .transport, message: "the connection failed" + (plainHTTPHint(error, url: url) ?? ""), statusCode: response?.statusCode, url: url,
                underlying: redacted, headers: response?.headers, phase: response == nil ? .sentWithoutResponse : .responded
            )
        }
        let phase = phase(ofFailure: nsError.code, responded: response != nil)
        let code: HTTPClientError.Code
        var message: String
        switch nsError.code {
        case NSURLErrorTimedOut:
            (code, message) = (.timedOut, "the server did not answer in time")
        case NSURLErrorCancelled:
            (code, message) = (.cancelled, "the transport cancelled the request")
        case NSURLErrorBadURL:
            (code, message) = (.invalidRequest, "the transport rejected the URL")
        case NSURLErrorUnsupportedURL where isHTTP(url):
            // The URL was a valid http(s) URL when it was built: URLSession reports a status line it
            // cannot parse (HTTP/0.9, garbage) this way. The server's fault, after sending.
            (code, message) = (.invalidResponse, "the server's answer is not an HTTP/1.x response")
        case NSURLErrorUnsupportedURL:
            (code, message) = (.invalidRequest, "the transport does not support the URL")
        case NSURLErrorCannotParseResponse, NSURLErrorCannotDecodeRawData, NSURLErrorCannotDecodeContentData:
            (code, message) = (.invalidResponse, "the server's answer could not be parsed")
        case NSURLErrorBadServerResponse:
            // Linux URLSession reports a connection closed before any answer ("Empty reply from
            // server") this way: a dropped connection, not a garbage answer.
            (code, message) = (.transport, "the server closed the connection without a valid answer")
        case NSURLErrorHTTPTooManyRedirects, NSURLErrorRedirectToNonExistentLocation:
            (code, message) = (.redirectRefused, "the redirects could not be followed")
        case NSURLErrorCannotConnectToHost:
            (code, message) = (.transport, "the connection was refused")
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed:
            (code, message) = (.transport, "the host name could not be resolved")
        case NSURLErrorNetworkConnectionLost:
            (code, message) = (.transport, "the connection was lost")
        default:
            (code, message) = (.transport, "the connection failed")
        }
        if let hint = plainHTTPHint(error, url: url) { message += hint }
        let finalPhase: HTTPClientError.Phase = code == .invalidRequest ? .notSent : (code == .invalidResponse && phase == .notSent ? .sentWithoutResponse : phase)
        return HTTPClientError(
            code, message: message, statusCode: response?.statusCode, url: url, underlying: redacted,
            headers: response?.headers, phase: finalPhase
        )
    }

    /// For an https URL whose TLS handshake met a plain-HTTP answer (OpenSSL's "wrong version
    /// number", BoringSSL's `WRONG_VERSION_NUMBER`): what to do about it. `HTTPClient(host:)`
    /// means https, and `"127.0.0.1:8080"` is usually a plain-HTTP server.
    static func plainHTTPHint(_ error: any Error, url: URL?) -> String? {
        guard url?.scheme?.lowercased() == "https", let host = url?.host else { return nil }
        let text = (String(describing: error) + " " + (error as NSError).localizedDescription).lowercased()
        guard text.contains("wrong version number") || text.contains("wrong_version_number") else { return nil }
        let port = url?.port.map { ":\($0)" } ?? ""
        return "; the server at \(host)\(port) answered the TLS handshake in plain HTTP: did you mean http://\(host)\(port)?"
    }

    private static func isHTTP(_ url: URL?) -> Bool {
        let scheme = url?.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }
}
