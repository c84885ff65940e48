import Foundation

/// Where plugins, which see Moya's `URLRequest`, meet the call's `HTTPTransportRequest`: the one
/// place the call converts, and only for a client that has plugins. A file body (an upload) is not
/// shown to plugins — a `URLRequest` could carry it only as a stream, which cannot come back — and
/// stays the request's.
enum HTTPPluginBridge {
    /// The request after every plugin's `prepare`, in order.
    ///
    /// - Throws: `HTTPClientError(.invalidRequest)` when a plugin left a request that cannot be
    ///   sent (no URL, a body stream).
    static func prepare(
        _ request: HTTPTransportRequest, plugins: [any HTTPPlugin], info: HTTPRequestInfo
    ) throws(HTTPClientError) -> HTTPTransportRequest {
        var prepared = foundation(request)
        for plugin in plugins {
            prepared = plugin.prepare(prepared, info: info)
        }
        var converted = try HTTPTransportRequest(prepared)
        if case .file = request.body {
            converted.body = request.body
        }
        return converted
    }

    /// `request` as plugins see it.
    private static func foundation(_ request: HTTPTransportRequest) -> URLRequest {
        guard case .file = request.body else { return request.urlRequest }
        var shown = request
        shown.body = .empty
        return shown.urlRequest
    }

    /// Every plugin's `willSend`, in order.
    static func willSend(_ request: HTTPTransportRequest, plugins: [any HTTPPlugin], info: HTTPRequestInfo) {
        let shown = foundation(request)
        for plugin in plugins {
            plugin.willSend(shown, info: info)
        }
    }

    /// Every plugin's `didReceive`, in order.
    static func didReceive(
        _ result: Result<HTTPResponse, HTTPClientError>, request: HTTPTransportRequest, plugins: [any HTTPPlugin],
        info: HTTPRequestInfo
    ) {
        let shown = foundation(request)
        for plugin in plugins {
            plugin.didReceive(result, request: shown, info: info)
        }
    }
}
