import Foundation

/// Joins a base URL and a request path into the URL that is sent.
///
/// - The path is joined to the base URL's path with exactly one slash (`https://h/v1/` +
///   `/users` and `https://h/v1` + `users` both give `https://h/v1/users`); a trailing slash of
///   the path is kept.
/// - The first `?` in the path starts its query, which is kept and followed by the parameters.
///   To put a literal `?` (or `/`, `#`, `%`) inside one path segment, escape the segment with
///   `HTTPClient.escapedPathSegment(_:)`.
/// - Characters not allowed in a path (spaces, non-ASCII, `#`, …) are percent-encoded on their
///   UTF-8 bytes; valid `%XX` escapes are kept as they are.
/// - A `.` or `..` segment in the path (also written `%2E`, `.%2e`, …) is refused with
///   `.invalidRequest`: URL normalisation (curl's, a server's, a proxy's) removes dot segments, so
///   `/req/../../etc/passwd` under `https://h/v1` would leave the base path. Keeping them literally
///   is not possible and encoding them changes nothing (`%2E%2E` is `..` to a normaliser).
enum URLBuilder {
    /// Checks that `url` can serve as a base: an http or https URL with a host.
    static func validateBase(_ url: URL) throws(HTTPClientError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPClientError(.invalidRequest, message: "the base URL must be http or https", url: url)
        }
        guard let host = url.host, !host.isEmpty else {
            throw HTTPClientError(.invalidRequest, message: "the base URL has no host", url: url)
        }
        if let port = url.port, !(1...65_535).contains(port) {
            throw HTTPClientError(.invalidRequest, message: "the port \(port) is not one of 1...65535", url: url)
        }
    }

    /// The base URL for `HTTPClient(host:)`: `"api.example.com"` becomes `https://api.example.com`,
    /// a string with a scheme is used as it is.
    static func baseURL(host: String) throws(HTTPClientError) -> URL {
        let trimmed = host.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw HTTPClientError(.invalidRequest, message: "the host is empty")
        }
        guard trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw HTTPClientError(.invalidRequest, message: "the host \(HeaderValidation.escaped(host)) contains spaces or control characters")
        }
        let text = trimmed.contains("://") ? trimmed : "https://" + trimmed
        guard let url = URL(string: text) else {
            throw HTTPClientError(.invalidRequest, message: "the host \(HeaderValidation.escaped(host)) is not a valid URL")
        }
        try validateBase(url)
        return url
    }

    /// A base URL taken apart once: `HTTPClient` keeps its own, so requests do not parse it again.
    struct Base: Sendable {
        /// The URL itself, for error messages.
        let url: URL
        /// Scheme, user, host and port, without a path: `https://api.example.com:8443`.
        let origin: String
        /// The percent-encoded path without trailing slashes.
        let path: String
        /// The percent-encoded query, if any.
        let query: String?

        /// Validates `url` (http or https with a host) and takes it apart.
        init(_ url: URL) throws(HTTPClientError) {
            try validateBase(url)
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
                throw HTTPClientError(.invalidRequest, message: "the base URL cannot be parsed", url: url)
            }
            let basePath = components.percentEncodedPath
            query = components.percentEncodedQuery
            components.percentEncodedPath = ""
            components.percentEncodedQuery = nil
            components.fragment = nil
            guard let origin = components.string else {
                throw HTTPClientError(.invalidRequest, message: "the base URL cannot be parsed", url: url)
            }
            self.url = url
            self.origin = origin
            self.path = String(basePath.reversed().drop { $0 == "/" }.reversed())
        }
    }

    /// The URL for `path` under `base`, with `parameters` appended to the query.
    static func url(base: URL, path: String, parameters: [(String, String)]) throws(HTTPClientError) -> URL {
        try url(base: Base(base), path: path, parameters: parameters)
    }

    /// The URL for `path` under an already parsed `base`, with `parameters` appended to the query.
    static func url(base: Base, path: String, parameters: [(String, String)]) throws(HTTPClientError) -> URL {
        var basePath = base.path
        var baseQuery = base.query
        let origin = base.origin
        var (pathPart, pathQuery) = split(path)
        if let absolute = try absolutePath(path, base: base) {
            // A full URL of the base's origin (a `next` link, a `Location`): its path and query
            // stand as they are, not under the base path.
            (basePath, baseQuery) = ("", nil)
            (pathPart, pathQuery) = absolute
        }
        if hasDotSegment(pathPart) {
            throw HTTPClientError(
                .invalidRequest,
                message: "the path \(HeaderValidation.escaped(pathPart)) has a \".\" or \"..\" segment, which would leave the base path",
                url: base.url
            )
        }
        let text: String
        if parameters.isEmpty, baseQuery?.isEmpty ?? true, pathQuery?.isEmpty ?? true,
           let plain = plainURLText(origin: origin, basePath: basePath, pathPart: pathPart) {
            text = plain
        } else {
            text = urlText(origin: origin, basePath: basePath, pathPart: pathPart, baseQuery: baseQuery, pathQuery: pathQuery, parameters: parameters)
        }
        // The origin (scheme, host, port) was checked when the base was parsed and the path is
        // percent-encoded, so the host cannot change here: only Foundation's parse is left to fail.
        guard let url = URL(string: text) else {
            throw HTTPClientError(.invalidRequest, message: "cannot build a URL from path \(HeaderValidation.escaped(path))", url: base.url)
        }
        return url
    }

    /// The URL's text: `origin`, `basePath`, `pathPart` (its leading slashes as one, percent-encoded),
    /// then the base's query, the path's and the parameters.
    static func urlText(
        origin: String, basePath: String, pathPart: String, baseQuery: String?, pathQuery: String?, parameters: [(String, String)]
    ) -> String {
        let relative = String(Substring(pathPart.utf8.drop { $0 == UInt8(ascii: "/") }))
        var text = origin
        text.reserveCapacity(origin.utf8.count + basePath.utf8.count + pathPart.utf8.count + 1)
        text += basePath
        if !relative.isEmpty || pathPart.utf8.last == UInt8(ascii: "/") || basePath.isEmpty {
            text += "/"
            text += PercentEncoding.encodePath(relative)
        }
        var separator = "?"
        func appendQueryPart(_ part: String) {
            text += separator
            text += part
            separator = "&"
        }
        if let baseQuery, !baseQuery.isEmpty { appendQueryPart(baseQuery) }
        if let pathQuery, !pathQuery.isEmpty { appendQueryPart(PercentEncoding.encodeQuery(pathQuery)) }
        for (name, value) in parameters {
            appendQueryPart(PercentEncoding.encodeQueryComponent(name) + "=" + PercentEncoding.encodeQueryComponent(value))
        }
        return text
    }

    /// `origin`, `basePath` and `pathPart` (its leading slashes as one) written in one allocation,
    /// as the general assembly in `url(base:path:parameters:)` joins them: the usual request, a
    /// path with no query and nothing to escape. Nil for any other.
    static func plainURLText(origin: String, basePath: String, pathPart: String) -> String? {
        var origin = origin, basePath = basePath, pathPart = pathPart
        return pathPart.withUTF8 { path -> String? in
            var start = 0
            while start < path.count, path[start] == UInt8(ascii: "/") { start += 1 }
            let relative = UnsafeBufferPointer(rebasing: path[start...])
            guard relative.allSatisfy(PercentEncoding.isPlainPathByte) else { return nil }
            let slashed = !relative.isEmpty || path.last == UInt8(ascii: "/") || basePath.isEmpty
            return origin.withUTF8 { origin in
                basePath.withUTF8 { basePath in
                    let count = origin.count + basePath.count + (slashed ? 1 + relative.count : 0)
                    return String(unsafeUninitializedCapacity: count) { buffer in
                        var written = 0
                        func write(_ part: UnsafeBufferPointer<UInt8>) {
                            guard !part.isEmpty else { return }
                            _ = UnsafeMutableBufferPointer(rebasing: buffer[written..<(written + part.count)]).initialize(from: part)
                            written += part.count
                        }
                        write(origin)
                        write(basePath)
                        if slashed {
                            buffer[written] = UInt8(ascii: "/")
                            written += 1
                            write(relative)
                        }
                        return written
                    }
                }
            }
        }
    }

    /// For a `path` that is a full http(s) URL: its path and query when its origin is the base's;
    /// nil for a path. A full URL of another origin is refused: it would be appended to the base
    /// URL and 404, or, taken as it is, carry the client's credentials to another server (a
    /// request to another server sets `Request.baseURL`).
    static func absolutePath(_ path: String, base: Base) throws(HTTPClientError) -> (String, String?)? {
        guard startsWithHTTPScheme(path) else { return nil }
        let shown = HeaderValidation.escaped(Redaction.standard.urlString(path))
        guard let components = URLComponents(string: path), let host = components.host?.lowercased(),
              let scheme = components.scheme?.lowercased(), let baseComponents = URLComponents(string: base.origin) else {
            throw HTTPClientError(.invalidRequest, message: "the path \(shown) is a full URL that cannot be parsed", url: base.url)
        }
        func port(_ scheme: String, _ port: Int?) -> Int { port ?? (scheme == "https" ? 443 : 80) }
        let baseScheme = baseComponents.scheme?.lowercased() ?? ""
        guard scheme == baseScheme, host == baseComponents.host?.lowercased(),
              port(scheme, components.port) == port(baseScheme, baseComponents.port), components.user == nil else {
            throw HTTPClientError(
                .invalidRequest,
                message: "the path \(shown) is a full URL of another origin than the base URL's (\(base.origin)); a request to another server sets Request.baseURL",
                url: base.url
            )
        }
        let absolutePath = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return (absolutePath, components.percentEncodedQuery)
    }

    /// Whether a segment of `path` is `.` or `..`, literally or percent-encoded.
    ///
    /// One pass over the UTF-8 bytes: each segment is counted in dots (`.` or `%2e`/`%2E`) and
    /// other bytes; a segment of one or two dots and nothing else is a dot segment.
    static func hasDotSegment(_ path: String) -> Bool {
        var dots = 0
        var others = 0
        var percent = 0   // bytes of a "%2e" seen so far: 1 after "%", 2 after "%2"
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if percent != 0 { others += 1 }
                if others == 0 && (dots == 1 || dots == 2) { return true }
                dots = 0; others = 0; percent = 0
                continue
            }
            switch (percent, byte) {
            case (0, UInt8(ascii: ".")): dots += 1
            case (0, UInt8(ascii: "%")): percent = 1
            case (1, UInt8(ascii: "2")): percent = 2
            case (2, UInt8(ascii: "e")), (2, UInt8(ascii: "E")): dots += 1; percent = 0
            default:
                others += 1
                percent = 0
            }
        }
        if percent != 0 { others += 1 }
        return others == 0 && (dots == 1 || dots == 2)
    }

    /// Splits at the first `?`: the path and its query, if any.
    /// Whether `path` starts with `http://` or `https://`, in any case: compared byte by byte, since
    /// nearly every path starts with "/" and is answered by its first byte.
    static func startsWithHTTPScheme(_ path: String) -> Bool {
        var bytes = path.utf8.makeIterator()
        for expected in "http".utf8 {
            guard let byte = bytes.next(), byte | 0x20 == expected else { return false }
        }
        var next = bytes.next()
        if next.map({ $0 | 0x20 }) == UInt8(ascii: "s") { next = bytes.next() }
        return next == UInt8(ascii: ":") && bytes.next() == UInt8(ascii: "/") && bytes.next() == UInt8(ascii: "/")
    }

    private static func split(_ path: String) -> (String, String?) {
        let bytes = path.utf8
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return (path, nil) }
        return (String(Substring(bytes[..<mark])), String(Substring(bytes[bytes.index(after: mark)...])))
    }
}
