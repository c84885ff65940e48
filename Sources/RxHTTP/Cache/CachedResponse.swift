import Foundation

/// A stored answer and what the cache needs to judge it (RFC 9111): the response, when its request
/// went out and when it came back (for its age, §4.2.3), and the request's values of the headers its
/// `Vary` names (to match a later request, §4.1).
struct CachedResponse: Sendable, Equatable {
    /// What the cache reads from the stored headers, parsed once when the answer is stored or
    /// loaded rather than on every hit.
    struct Parsed: Sendable, Equatable {
        let control: CacheControl
        let date: Date?
        /// `Expires`: nil when absent; `.distantPast` when present but not a date (§5.3).
        let expires: Date?
        let lastModified: Date?
        let age: TimeInterval
        let varyNames: [String]
        let etag: String?
        let lastModifiedText: String?

        init(_ headers: HTTPHeaders) {
            control = CacheControl(headers: headers)
            date = CacheFreshness.date("Date", in: headers)
            expires = headers["Expires"].map { HTTPDate.parse(Array($0.utf8.prefix(64))) ?? .distantPast }
            lastModifiedText = headers["Last-Modified"]
            lastModified = CacheFreshness.date("Last-Modified", in: headers)
            age = headers["Age"].flatMap { CacheControl.seconds(Array($0.utf8)[...]) } ?? 0
            varyNames = CachedResponse.varyNames(headers)
            etag = headers["ETag"]
        }
    }

    var statusCode: Int
    /// Setting them parses them again.
    var headers: HTTPHeaders {
        didSet { parsed = Parsed(headers) }
    }
    var body: Data
    var url: URL?
    /// When the request that fetched (or last revalidated) it was sent, on the client's clock.
    var requestTime: Date
    /// When its answer arrived.
    var responseTime: Date
    /// The request's values of the headers `Vary` names, by lower-cased name; absent means the
    /// request did not have it.
    var varyValues: [String: String]
    private(set) var parsed: Parsed

    init(statusCode: Int, headers: HTTPHeaders, body: Data, url: URL?, requestTime: Date, responseTime: Date, varyValues: [String: String]) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyValues = varyValues
        self.parsed = Parsed(headers)
    }

    /// The names `Vary` lists, lower-cased; `["*"]` for `Vary: *`.
    static func varyNames(_ headers: HTTPHeaders) -> [String] {
        var names: [String] = []
        for (name, value) in headers where HeaderFields.equalsIgnoringASCIICase(name, "Vary") {
            for item in value.split(separator: ",").prefix(32) {
                let trimmed = item.trimmingCharacters(in: .whitespaces).lowercased()
                if !trimmed.isEmpty, !names.contains(trimmed) { names.append(trimmed) }
            }
        }
        return names
    }

    /// The request's value of each name in `names`, whitespace-normalized (§4.1).
    static func values(of names: [String], in requestHeaders: HTTPHeaders) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = requestHeaders[name] {
                values[name] = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            }
        }
        return values
    }

    /// Whether a request with `requestHeaders` may be answered by this variant (§4.1).
    func matches(_ requestHeaders: HTTPHeaders) -> Bool {
        let names = parsed.varyNames
        if names.isEmpty { return varyValues.isEmpty }
        guard !names.contains("*") else { return false }
        return Self.values(of: names, in: requestHeaders) == varyValues
    }

    /// The answer to deliver, marked with where it came from.
    func response(_ status: CacheStatus) -> HTTPResponse {
        var response = HTTPResponse(statusCode: statusCode, headers: headers, body: body, url: url)
        response.cacheStatus = status
        return response
    }

    /// Bytes it takes, roughly: the body and the headers.
    var size: Int {
        body.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } + 256
    }

    /// This response updated by a 304's headers (§4.3.4): the lines of each field the 304 carries
    /// replace the stored lines of that field (all of them, a repeated field's too), except those
    /// that describe the body, which stays.
    func updated(with notModified: HTTPHeaders, requestTime: Date, responseTime: Date) -> CachedResponse {
        var updated = self
        let kept: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range", "content-type"]
        // In one pass over each (a hostile 304 may carry thousands of lines): the stored lines of
        // every field the 304 replaces go, and the 304's lines of those fields come after the rest.
        let replaced = Set(notModified.lazy.map { $0.name.lowercased() }).subtracting(kept)
        var headers = HTTPHeaders(headers.lazy.filter { !replaced.contains($0.name.lowercased()) }.map { ($0.name, $0.value) })
        for (name, value) in notModified where replaced.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        updated.headers = headers
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }
}
