import Foundation
import RxCore

/// The client's plugins on the interceptor chain: the one place where Moya's hooks, which see a
/// `URLRequest`, meet the call. The innermost interceptor, after authentication, so plugins see
/// the request as it is sent (signed, admitted) and each answer first, as they always did.
///
/// Per attempt: every plugin's `prepare` in order, then every `willSend`; on the way back every
/// `didReceive`, then each `process`, whose result goes on to the interceptors further out (and is
/// what the observing interceptors' `attemptDidEnd` gets). Every `willSend` is followed by one
/// `didReceive`, also for an attempt cut short or one that failed its last checks before the
/// transport. The call's end reaches `didFinish` as an observer, after the configuration's
/// interceptors. A file body (an upload) is not shown to plugins — a `URLRequest` could carry it
/// only as a stream, which cannot come back — and stays the request's.
///
/// - Note: Thread-safe: the plugins must be (they are shared by every call); the request an attempt
///   showed its plugins is kept on the call.
struct PluginInterceptor: HTTPInterceptor {
    let plugins: [any HTTPPlugin]

    /// The request the attempt in progress showed its plugins, for their `didReceive`.
    private static let shownRequest = HTTPCallKey<URLRequest>("RxHTTP.plugins.shownRequest")

    func prepare(
        _ request: HTTPTransportRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        let info = call.requestInfo
        var shown = Self.foundation(request)
        for plugin in plugins {
            shown = plugin.prepare(shown, info: info)
        }
        var prepared: HTTPTransportRequest
        do throws(HTTPClientError) {
            prepared = try HTTPTransportRequest(shown)
        } catch {
            completion(.fail(error))
            return nil
        }
        if case .file = request.body {
            prepared.body = request.body
        }
        call.setValue(shown, for: Self.shownRequest)
        for plugin in plugins {
            plugin.willSend(shown, info: info)
        }
        completion(.proceed(prepared))
        return nil
    }

    func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict {
        let info = call.requestInfo
        let shown = call.takeValue(for: Self.shownRequest) ?? Self.foundation(call.plan.request)
        for plugin in plugins {
            plugin.didReceive(result, request: shown, info: info)
        }
        var processed = result
        for plugin in plugins {
            processed = plugin.process(processed, info: info)
        }
        return .replace(processed)
    }

    func callDidFinish(_ summary: HTTPCallSummary, for call: HTTPCall) {
        let info = call.requestInfo
        for plugin in plugins {
            plugin.didFinish(summary, info: info)
        }
    }

    /// `request` as plugins see it.
    private static func foundation(_ request: HTTPTransportRequest) -> URLRequest {
        guard case .file = request.body else { return request.urlRequest }
        var shown = request
        shown.body = .empty
        return shown.urlRequest
    }
}
