import Foundation

extension HTTPTransportRequest {
    /// The request `request` describes: its method (`GET` when unset), URL, header fields (sorted by
    /// name: a `URLRequest` keeps no order), body and time-out.
    ///
    /// - Parameter request: A request with an absolute URL; an `httpBodyStream` is not read.
    /// - Throws: `HTTPClientError(.invalidRequest)` for a request without a URL or with a body
    ///   stream, which this value cannot carry.
    public init(_ request: URLRequest) throws(HTTPClientError) {
        guard let url = request.url else {
            throw HTTPClientError(.invalidRequest, message: "the request has no URL", phase: .notSent)
        }
        guard request.httpBodyStream == nil else {
            throw HTTPClientError(.invalidRequest, message: "a body stream cannot be carried over", url: url, phase: .notSent)
        }
        self.init(
            method: request.httpMethod.map(HTTPMethod.init(rawValue:)) ?? .get, url: url,
            headers: HTTPHeaders(request.allHTTPHeaderFields ?? [:]), body: request.httpBody.map(Body.bytes) ?? .empty,
            timeoutInterval: request.timeoutInterval
        )
    }

    /// The request as Foundation's `URLRequest`, for `URLSession` and code written for it. A field
    /// with several lines becomes one, its values joined with ", " (a `URLRequest` holds one value
    /// per name); a file body becomes an `httpBodyStream` of the file.
    public var urlRequest: URLRequest {
        urlRequest(timeoutInterval: timeoutInterval)
    }

    /// The request as a `URLRequest` whose time-out is `timeoutInterval` (set once: each of
    /// `URLRequest`'s setters copies it on Linux).
    func urlRequest(timeoutInterval: TimeInterval) -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeoutInterval)
        // URLRequest's setters copy the request on Linux: only the ones that change something.
        if method != .get {
            request.httpMethod = method.rawValue
        }
        if !headers.isEmpty {
            request.allHTTPHeaderFields = headers.foundationFields
        }
        switch body {
        case .empty:
            break
        case .bytes(let data):
            request.httpBody = data
        case .file(let file):
            // A stream has no length for URLSession (it sends it chunked); `URLSessionTransport`
            // uploads the file itself, with its length.
            request.httpBodyStream = InputStream(url: file.url)
        }
        return request
    }
}

extension HTTPHeaders {
    /// The fields as Foundation's one value per name: the lines of a repeated name joined with
    /// ", ", under the spelling of its first line.
    var foundationFields: [String: String] {
        var fields: [String: String] = [:]
        fields.reserveCapacity(count)
        var spelled: [String] = []
        for (name, value) in self {
            if let existing = spelled.first(where: { Self.equal($0, name) }), let current = fields[existing] {
                fields[existing] = current + ", " + value
            } else {
                spelled.append(name)
                fields[name] = value
            }
        }
        return fields
    }
}
