import Foundation

extension LoopbackHTTPResponse {
    /// The answer a file server gives `request` for `file` (RFC 9110 §14): the whole file (200) with
    /// its validators, or — for `Range: bytes=N-` (or `N-M`) whose `If-Range` matches `etag` (or
    /// `lastModified`) or is absent — `206` with that part and its `Content-Range`; `416` with
    /// `Content-Range: bytes */length` for a range that starts past the end. An `If-Range` that does
    /// not match gets the whole file, as a server whose file changed answers. For testing downloads
    /// that resume; combine with `closingConnection(afterBodyBytes:)` to cut a connection mid-body.
    ///
    /// - Parameters:
    ///   - file: The file's bytes.
    ///   - request: The request to answer.
    ///   - etag: The file's `ETag`, quoted (`"\"v1\""`), or nil for none.
    ///   - lastModified: Its `Last-Modified`, or nil for none.
    /// - Returns: The response.
    public static func ranged(_ file: Data, for request: LoopbackHTTPRequest, etag: String? = nil, lastModified: String? = nil) -> LoopbackHTTPResponse {
        var whole = LoopbackHTTPResponse.data(file).withHeader("Accept-Ranges", "bytes")
        if let etag { whole = whole.withHeader("ETag", etag) }
        if let lastModified { whole = whole.withHeader("Last-Modified", lastModified) }
        guard let range = request.header("Range"), range.hasPrefix("bytes=") else { return whole }
        if let ifRange = request.header("If-Range"), ifRange != etag, ifRange != lastModified { return whole }
        let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]) else { return whole }
        let length = file.count
        guard first < length else {
            return LoopbackHTTPResponse.status(416).withHeader("Content-Range", "bytes */\(length)")
        }
        let last = min(Int(bounds[1]) ?? (length - 1), length - 1)
        guard first <= last else { return whole }
        var part = LoopbackHTTPResponse.data(file.subdata(in: first..<(last + 1)), status: 206)
            .withHeader("Content-Range", "bytes \(first)-\(last)/\(length)")
            .withHeader("Accept-Ranges", "bytes")
        if let etag { part = part.withHeader("ETag", etag) }
        if let lastModified { part = part.withHeader("Last-Modified", lastModified) }
        return part
    }
}
