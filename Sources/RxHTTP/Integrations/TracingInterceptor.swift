// Compiled with the package trait `Tracing` only.
#if Tracing
import Foundation
import Instrumentation
import RxCore
import Tracing

/// A swift-distributed-tracing client span per call, by OpenTelemetry's HTTP client conventions:
/// started when the call first reaches this interceptor, as a child of the caller's
/// `ServiceContext.current` (the task's, for `client.send` or a call subscribed in a task); ended
/// once, with the call's outcome. Every attempt carries the span's context in its headers
/// (`traceparent` with an OpenTelemetry tracer: the installed instrument decides) and is recorded as
/// an `http.attempt` event with its status or error. A token refresh the call sets off is a call of
/// its own whose span is a child of this one, and its request carries the context too.
///
/// ```swift
/// let client = HTTPClient(baseURL: api, configuration: .init(interceptors: [TracingInterceptor()]))
/// ```
///
/// Put it first among the interceptors, so that the span covers the waits the others impose and
/// the context reaches whatever they start.
///
/// Attributes: `http.request.method`, `server.address`, `server.port`, `url.full` (redacted like
/// the logger's: no token reaches a span), `http.request.resend_count` (from the second attempt),
/// `http.response.status_code`, `error.type` (a status of 400 or more, or the failure's code). A
/// failed call's span has the status `.error`. The span is named after the method (the
/// conventions' name when no route template is known).
///
/// - Note: `Sendable`. The hooks run on the threads the call's events run on.
public struct TracingInterceptor: HTTPInterceptor {
    /// The call's span, boxed: a cast to a class is cheap, one to `any Span` searches conformances.
    private final class SpanBox: Sendable {
        let span: any Span
        init(_ span: any Span) { self.span = span }
    }

    private static let spanKey = HTTPCallKey<SpanBox>("TracingInterceptor.span")

    private let tracer: (any Tracer)?

    /// Creates the interceptor.
    ///
    /// - Parameter tracer: The tracer to start spans with and inject their context; nil (the
    ///   default) uses `InstrumentationSystem.tracer`, the bootstrapped one, at each call.
    public init(tracer: (any Tracer)? = nil) {
        self.tracer = tracer
    }

    public func prepare(
        _ request: HTTPTransportRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        let span: any Span
        if let started = call.value(for: Self.spanKey)?.span {
            span = started
            if span.isRecording {
                span.attributes["http.request.resend_count"] = max(0, call.attempt - 1)
            }
        } else {
            span = startSpan(for: call)
            call.setValue(SpanBox(span), for: Self.spanKey)
        }
        var traced = request
        (tracer ?? InstrumentationSystem.tracer).inject(span.context, into: &traced, using: RequestHeaderInjector())
        // What the interceptors after this one start on this thread (a token refresh) is a child.
        ServiceContext.withValue(span.context) {
            completion(.proceed(traced))
        }
        return nil
    }

    public func attemptDidEnd(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) {
        guard let span = call.value(for: Self.spanKey)?.span, span.isRecording else { return }
        var attributes: SpanAttributes = [:]
        attributes["http.request.resend_count"] = max(0, call.attempt - 1)
        let (status, errorType) = Self.outcome(result.map(\.statusCode))
        attributes["http.response.status_code"] = status
        attributes["error.type"] = errorType
        span.addEvent(SpanEvent(name: "http.attempt", attributes: attributes))
    }

    public func callDidFinish(_ summary: HTTPCallSummary, for call: HTTPCall) {
        // Taken once: the span ends once. A call that ended before reaching `prepare` (refused at
        // its start) gets a span of its own here, so that no call goes untraced.
        let span = call.takeValue(for: Self.spanKey)?.span ?? startSpan(for: call)
        guard span.isRecording else {
            span.end()
            return
        }
        let (status, errorType) = Self.outcome(summary.outcome)
        span.updateAttributes { attributes in
            attributes["http.response.status_code"] = status
            attributes["error.type"] = errorType
            if summary.attempts > 1 {
                attributes["http.request.resend_count"] = summary.attempts - 1
            }
        }
        if errorType != nil {
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    private func startSpan(for call: HTTPCall) -> any Span {
        let span: any Span = (tracer ?? InstrumentationSystem.tracer).startSpan(
            call.method.rawValue, context: ServiceContext.current ?? .topLevel, ofKind: .client
        )
        guard span.isRecording else { return span }
        let url = call.url.map { Redaction.standard.url($0) }
        span.updateAttributes { attributes in
            attributes["http.request.method"] = call.method.rawValue
            if let url, let server = ServerAddress(url: url) {
                attributes["server.address"] = server.address
                attributes["server.port"] = server.port
                attributes["url.full"] = url
            }
        }
        return span
    }

    /// The status and the `error.type` of an outcome: a status of 400 or more is its own error type.
    private static func outcome(_ outcome: Result<Int, HTTPClientError>) -> (status: Int?, errorType: String?) {
        switch outcome {
        case .success(let status):
            return (status, status >= 400 ? String(status) : nil)
        case .failure(let error):
            if let status = error.statusCode, error.code == .unacceptableStatusCode {
                return (status, String(status))
            }
            return (error.statusCode, error.code.rawValue)
        }
    }
}

/// Writes a context's values (`traceparent`, `tracestate`, …) as request headers.
struct RequestHeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout HTTPTransportRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}
#endif
