import Foundation

/// Which redirects a transport follows, and what a followed redirect may carry.
///
/// Whatever the mode:
/// - Only `http` and `https` targets are followed; a `Location` with any other scheme (`file:`,
///   `data:`, `ftp:`…) fails with `.redirectRefused`, naming the (redacted) target.
/// - An `https` → `http` redirect fails with `.redirectRefused` unless `allowsHTTPSDowngrade`.
/// - A redirect that leaves the request's origin (scheme, host or port) drops `Authorization`,
///   `Proxy-Authorization`, `Cookie` and the transport options' `credentialHeaderNames`, as OkHttp
///   and urllib3 do; they are not restored if a later hop comes back.
/// - More than `maxRedirects` hops fail with `.redirectRefused`.
///
/// 301/302 turn a POST into a GET without body and 303 turns any method into a GET; 307 and 308
/// keep the method and body (URLSession's rules).
///
/// - Note: A value type; `Sendable`.
public struct RedirectPolicy: Sendable, Hashable {
    /// How redirects are treated.
    public enum Mode: Sendable, Hashable {
        /// Follow redirects to any http(s) origin (credentials stripped when the origin changes).
        case follow
        /// Follow redirects within the request's origin only; another origin fails with
        /// `.redirectRefused`.
        case sameOrigin
        /// Follow nothing: the 3xx response is the response (and fails status validation unless
        /// 3xx statuses are acceptable).
        case none
    }

    /// How redirects are treated.
    public var mode: Mode
    /// The most redirects followed for one request; clamped to 0...50.
    public var maxRedirects: Int
    /// Whether an https page may redirect to an http one.
    public var allowsHTTPSDowngrade: Bool

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - mode: How redirects are treated; default `.follow`.
    ///   - maxRedirects: The most hops; default 10, clamped to 0...50.
    ///   - allowsHTTPSDowngrade: Whether https → http is followed; default false.
    public init(mode: Mode = .follow, maxRedirects: Int = 10, allowsHTTPSDowngrade: Bool = false) {
        self.mode = mode
        self.maxRedirects = min(max(0, maxRedirects), 50)
        self.allowsHTTPSDowngrade = allowsHTTPSDowngrade
    }

    /// Follow up to 10 redirects to http(s) targets, stripping credentials across origins.
    public static let follow = RedirectPolicy()
    /// Follow up to 10 redirects within the request's origin.
    public static let sameOrigin = RedirectPolicy(mode: .sameOrigin)
    /// Follow no redirect.
    public static let none = RedirectPolicy(mode: .none)

    /// The headers always removed when a redirect changes origin (lower case).
    static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// What to do with one redirect.
    @_spi(TransportSupport)
    public enum Decision: Sendable {
        /// Follow it with this request.
        case follow(HTTPTransportRequest)
        /// Do not follow: the 3xx response is the response.
        case deliverResponse
        /// Fail the exchange.
        case refuse(HTTPClientError)
    }

    /// Decides about a redirect.
    ///
    /// - Parameters:
    ///   - location: The response's `Location` value, if any.
    ///   - current: The URL that answered with the redirect.
    ///   - proposed: The request URLSession would send next (method and body already adjusted).
    ///   - hopsSoFar: Redirects already followed for this request.
    ///   - credentialHeaderNames: Further headers to strip across origins.
    @_spi(TransportSupport)
    public func decide(
        location: String?,
        current: URL,
        proposed: HTTPTransportRequest,
        hopsSoFar: Int,
        credentialHeaderNames: Set<String>
    ) -> Decision {
        guard mode != .none, let location else { return .deliverResponse }
        let redaction = Redaction.standard
        guard let target = URL(string: location.trimmingCharacters(in: .whitespaces), relativeTo: current)?.absoluteURL,
              let scheme = target.scheme?.lowercased() else {
            return .refuse(refusal("the redirect target \(HeaderValidation.escaped(redaction.urlString(location))) is not a valid URL", current))
        }
        guard scheme == "http" || scheme == "https", let host = target.host, !host.isEmpty else {
            return .refuse(refusal("a redirect to \(redaction.urlString(location)) was refused: only http and https targets are followed", current))
        }
        if current.scheme?.lowercased() == "https", scheme == "http", !allowsHTTPSDowngrade {
            return .refuse(refusal("a redirect from https to \(redaction.url(target)) was refused (downgrade)", current))
        }
        guard hopsSoFar < maxRedirects else {
            return .refuse(refusal("more than \(maxRedirects) redirects", current))
        }
        let sameOrigin = Origin(current) == Origin(target)
        if mode == .sameOrigin, !sameOrigin {
            return .refuse(refusal("a redirect to another origin (\(redaction.url(target))) was refused by the same-origin policy", current))
        }
        var next = proposed
        next.url = target
        if !sameOrigin {
            let stripped = Self.credentialHeaders.union(credentialHeaderNames.map { $0.lowercased() })
            for name in next.headers.names where stripped.contains(name.lowercased()) {
                next.headers.remove(name)
            }
        }
        return .follow(next)
    }

    private func refusal(_ message: String, _ url: URL) -> HTTPClientError {
        HTTPClientError(.redirectRefused, message: message, url: url, phase: .sentWithoutResponse)
    }
}

extension RedirectPolicy {
    /// Decides about a redirect for a transport that follows redirects itself (URLSession does this
    /// part for `URLSessionTransport`): builds the next request by URLSession's rules, then applies
    /// `decide(location:current:proposed:hopsSoFar:credentialHeaderNames:)`.
    ///
    /// 301 and 302 turn a POST into a GET and 303 turns every method but HEAD into a GET, each
    /// without body, `Content-Type` or `Content-Length`; 307 and 308 keep method and body. Any other
    /// status, or a 3xx without `Location`, is the response (`.deliverResponse`).
    ///
    /// - Parameters:
    ///   - request: The request that was answered with the redirect.
    ///   - statusCode: The redirect's status.
    ///   - location: Its `Location` value, if any.
    ///   - current: The URL that answered.
    ///   - hopsSoFar: Redirects already followed for this request.
    ///   - credentialHeaderNames: Further headers to strip across origins.
    /// - Returns: What to send next, or that the response stands, or why the redirect is refused.
    @_spi(TransportSupport)
    public func followUp(
        to request: HTTPTransportRequest,
        statusCode: Int,
        location: String?,
        current: URL,
        hopsSoFar: Int,
        credentialHeaderNames: Set<String>
    ) -> Decision {
        let method = request.httpMethod.uppercased()
        let becomesGET: Bool
        switch statusCode {
        case 301, 302: becomesGET = method == "POST"
        case 303: becomesGET = method != "HEAD"
        case 307, 308: becomesGET = false
        default: return .deliverResponse
        }
        var proposed = request
        if becomesGET {
            proposed.method = .get
            proposed.body = .empty
            proposed.headers.remove("Content-Type")
            proposed.headers.remove("Content-Length")
        }
        return decide(location: location, current: current, proposed: proposed, hopsSoFar: hopsSoFar, credentialHeaderNames: credentialHeaderNames)
    }
}

/// Scheme, host and port (the default port when none is given), compared case-insensitively.
struct Origin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }

    var description: String {
        "\(scheme)://\(host):\(port)"
    }
}
