import Foundation

/// Where plugins, which see Moya's `URLRequest`, meet the call's `HTTPTransportRequest`: the one
/// place the call converts, and only for a client that has plugins.
enum HTTPPluginBridge {
    /// The request after every plugin's `prepare`, in order.
    ///
    /// - Throws: `HTTPClientError(.invalidRequest)` when a plugin left a request that cannot be
    ///   sent (no URL, a body stream).
    static func prepare(
        _ request: HTTPTransportRequest, plugins: [any HTTPPlugin], info: HTTPRequestInfo
    ) throws(HTTPClientError) -> HTTPTransportRequest {
        var prepared = request.urlRequest
        for plugin in plugins {
            prepared = plugin.prepare(prepared, info: info)
        }
        return try HTTPTransportRequest(prepared)
    }

    /// Every plugin's `willSend`, in order.
    static func willSend(_ request: HTTPTransportRequest, plugins: [any HTTPPlugin], info: HTTPRequestInfo) {
        let foundation = request.urlRequest
        for plugin in plugins {
            plugin.willSend(foundation, info: info)
        }
    }

    /// Every plugin's `didReceive`, in order.
    static func didReceive(
        _ result: Result<HTTPResponse, HTTPClientError>, request: HTTPTransportRequest, plugins: [any HTTPPlugin],
        info: HTTPRequestInfo
    ) {
        let foundation = request.urlRequest
        for plugin in plugins {
            plugin.didReceive(result, request: foundation, info: info)
        }
    }
}
