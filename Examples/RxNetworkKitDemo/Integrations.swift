import Foundation
import RxNetworkKit
import RxTesting
#if AsyncHTTPClient
import RxNetworkKitAsyncHTTPClient
#endif
#if Logging
import InMemoryLogging
#endif
#if Logging || ServiceLifecycle
import Logging
#endif
#if Metrics
import Metrics
import MetricsTestKit
#endif
#if Tracing
import InMemoryTracing
import Tracing
#endif
#if ServiceLifecycle
import ServiceLifecycle
#endif

// The demo's steps that need a package trait: each runs when the demo is built with its trait
// (`swift run --traits AsyncHTTPClient,Logging,Metrics,Tracing,ServiceLifecycle RxNetworkKitDemo`) and
// otherwise says how to see it.

/// Step 12's second half: the same batch over AsyncHTTPClientTransport (trait `AsyncHTTPClient`).
func fastTransportStep(baseURL: URL, urlSessionTime: Double) -> String {
    #if AsyncHTTPClient
    let client = HTTPClient(baseURL: baseURL, configuration: .init(timeout: 5), transport: AsyncHTTPClientTransport())
    let (completed, time) = timed { decodedCount(of: 1_000, inFlight: 16, over: client) }
    let cookieLines = (try? outcome(of: client.rx.response(Text(path: "/cookies"))).get())?.headers.values(for: "Set-Cookie").count ?? 0
    _ = outcome(of: client.shutdown(gracePeriod: 1).andThen(Single.just(())))
    return "over AsyncHTTPClientTransport: \(completed) decoded in \(ms(time)) "
        + "(\(String(format: "%.0f", Double(completed) / time * 1000)) req/s, "
        + "\(String(format: "%.1f", urlSessionTime / time))x URLSession's rate; the embedded server shares the 2 cores); "
        + "the 3 Set-Cookie lines arrive as \(cookieLines)"
    #else
    return "over AsyncHTTPClient: swift run --traits AsyncHTTPClient RxNetworkKitDemo"
    #endif
}

/// Step 17: a WebSocket that survives a dropped connection (trait `AsyncHTTPClient`; URLSession
/// cannot hand over a connection, and says so with a typed error).
func webSocketStep(server: LoopbackHTTPServer) -> [String] {
    let connections = LockedLines()
    server.route(.get, "/ws") { _ in
        connections.append("connection")
        return connections.lines.count == 1
            ? .webSocket([.sendMany(count: 500, prefix: "tick "), .drop])
            : .webSocket([.echo(count: .max)])
    }
    let unsupported = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
    let refusal = LockedLines()
    let refused = unsupported.webSocket(path: "/ws").messages
        .subscribe(onError: { refusal.append("\(($0 as? HTTPClientError)?.code.rawValue ?? "?")") })
    while refusal.lines.isEmpty { usleep(1_000) }
    refused.dispose()
    _ = unsupported.shutdown(gracePeriod: 0)
    var lines = ["over URLSessionTransport: \(refusal.lines[0]), at once and typed (URLSession does not hand over the connection)"]
    lines.append(stubbedWebSocketHour())
    #if AsyncHTTPClient
    let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5), transport: AsyncHTTPClientTransport())
    // 500 sends at once: room for all of them (the default keeps 256 waiting, then `.bufferOverflow`).
    let socket = client.webSocket(
        path: "/ws", reconnect: ReconnectPolicy(delay: .constant(time: 0.05), jitter: .none),
        options: WebSocketOptions(maxQueuedSends: 500)
    )
    let received = LockedLines()
    let states = LockedLines()
    let (count, time) = timed { () -> Int in
        let stateChanges = socket.state.subscribe(onNext: { states.append("\($0)") })
        let messages = socket.messages.subscribe(onNext: { message in
            if case .text(let text) = message { received.append(text) }
        })
        let deadline = Date().addingTimeInterval(10)
        while received.lines.count < 500 || socket.currentState != .open, Date() < deadline { usleep(1_000) }
        let refused = LockedLines()
        for index in 0..<500 {
            _ = socket.send(.text("echo \(index)")).subscribe(onError: { refused.append("\($0)") })
        }
        while received.lines.count < 1_000, refused.lines.isEmpty, Date() < deadline { usleep(1_000) }
        messages.dispose()
        stateChanges.dispose()
        return received.lines.count
    }
    let inOrder = received.lines.suffix(500) == ArraySlice((0..<500).map { "echo \($0)" })
    _ = outcome(of: client.shutdown(gracePeriod: 1).andThen(Single.just(())))
    lines.append("over AsyncHTTPClientTransport: \(count) messages in \(ms(time)) (500 pushed, the connection dropped, "
                 + "reconnected, 500 echoed \(inOrder ? "in order" : "OUT OF ORDER")) over \(connections.lines.count) connections; "
                 + "states: \(states.lines.joined(separator: " → "))")
    lines.append(webSocketDelivery(server: server))
    #else
    lines.append("over AsyncHTTPClient: swift run --traits AsyncHTTPClient RxNetworkKitDemo")
    #endif
    return lines
}

#if AsyncHTTPClient
/// Step 17's burst: 20,000 pushed messages, delivered on the callback queue (the default) and on
/// the connection's thread (`deliversOnConnectionThread`), timed.
func webSocketDelivery(server: LoopbackHTTPServer) -> String {
    let count = 20_000
    server.route(.get, "/burst", .webSocket([.sendMany(count: count, prefix: "m"), .close(code: 1000, reason: "")]))
    let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5), transport: AsyncHTTPClientTransport())
    let timings = [false, true].map { inline -> String in
        let socket = client.webSocket(path: "/burst", reconnect: .never,
                                      options: WebSocketOptions(deliversOnConnectionThread: inline))
        let failures = LockedLines()
        let (outcome, time) = timed { () -> String in
            let ended = DispatchSemaphore(value: 0)
            let counted = LockedCount()
            let subscription = socket.messages.subscribe(
                onNext: { _ in counted.increment() },
                onError: { failures.append("\($0)"); ended.signal() },
                onCompleted: { ended.signal() }
            )
            let finished = ended.wait(timeout: .now() + 10) == .success
            subscription.dispose()
            return finished && failures.lines.isEmpty ? "\(counted.value)" : "failed after \(counted.value)"
        }
        return "\(outcome) in \(ms(time)) \(inline ? "on the connection's thread" : "on the callback queue")"
    }
    _ = outcome(of: client.shutdown(gracePeriod: 1).andThen(Single.just(())))
    return "a burst of \(count) messages: \(timings.joined(separator: ", "))"
}

/// A count bumped by callbacks on any thread.
final class LockedCount: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored = 0
    func increment() { lock.withLock { stored += 1 } }
    var value: Int { lock.withLock { stored } }
}
#endif

/// Step 17 in a unit test's clothes: `StubTransport.stubWebSocket` and a `TestScheduler` run an hour
/// of a socket (a message a second, a drop every 10 minutes) in virtual time, on any transport setup.
func stubbedWebSocketHour() -> String {
    let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    let stub = StubTransport(scheduler: scheduler)
    let feed = stub.stubWebSocket(path: "/feed")
    let client = HTTPClient(baseURL: URL(string: "https://api.test")!,
                            configuration: .init(callbackScheduler: scheduler, scheduler: scheduler), transport: stub)
    let socket = client.webSocket(path: "/feed", reconnect: ReconnectPolicy(delay: .constant(time: 2), jitter: .none, reconnectsWhenReachable: false),
                                  options: WebSocketOptions(scheduler: scheduler))
    let received = LockedLines()
    let (_, time) = timed {
        let messages = socket.messages.subscribe(onNext: { message in
            if case .text(let text) = message { received.append(text) }
        })
        for second in 1...3_600 {
            scheduler.advanceTo(TestTime(second))
            feed.send(.text("tick \(second)"))
            if second.isMultiple(of: 600) && second < 3_600 { feed.drop() }
        }
        messages.dispose()
        scheduler.advanceTo(3_601)
    }
    return "in a unit test (StubTransport.stubWebSocket, virtual time): an hour of a feed, \(received.lines.count) messages over "
        + "\(feed.connectionCount) connections (those sent while it reconnected are lost, as on a real server), "
        + "closed with \(feed.receivedCloseCodes.map { $0.map { "\($0.rawValue)" } ?? "no code" }.joined(separator: ", ")), in \(ms(time))"
}

/// A request that fails once with 503, so that metrics and spans have a retry to show.
struct Flaky: RetryableRequest {
    typealias Response = String
    let path: String
    var retryPolicy: RetryPolicy { RetryPolicy(maxAttempts: 2, delay: .constant(time: 0.01)) }
}

/// Step 16: one client with every integration the demo was built with, 20 calls (one retried).
func serverSwiftStep(server: LoopbackHTTPServer) -> [String] {
    let baseURL = server.baseURL
    let firstTry = LockedLines()
    server.route(.get, "/flaky-once") { _ in
        firstTry.append("sent")
        return firstTry.lines.count == 1 ? .status(503) : .text("recovered")
    }
    var lines: [String] = []
    var interceptors: [any HTTPInterceptor] = []
    var plugins: [any HTTPPlugin] = []
    #if Logging
    let logs = InMemoryLogHandler()
    var logger = Logger(label: "demo.api") { _ in logs }
    logger.logLevel = .trace
    plugins.append(NetworkLoggerPlugin(logger: logger))
    #endif
    #if Tracing
    let tracer = InMemoryTracer()
    interceptors.append(TracingInterceptor(tracer: tracer))
    #endif
    let client = HTTPClient(baseURL: baseURL, configuration: .init(timeout: 5, interceptors: interceptors), plugins: plugins)
    #if Metrics
    let metrics = TestMetrics()
    let recording = client.recordMetrics(factory: metrics)
    #endif
    #if ServiceLifecycle
    let service = HTTPClientService(client, gracePeriod: 1)
    #endif

    let (answered, time) = timed { () -> Int in
        (0..<20).filter { index in
            (try? outcome(of: client.rx.request(Flaky(path: index == 0 ? "/flaky-once" : "/users/42"))).get()) != nil
        }.count
    }
    lines.append("\(answered) of 20 calls answered in \(ms(time)) through every integration built in")

    #if Logging
    let debug = logs.entries.filter { $0.level == .debug }
    let trace = logs.entries.filter { $0.level == .trace }
    lines.append("swift-log: \(debug.count) .debug lines (one per call), \(trace.count) .trace lines (attempts); "
                 + "metadata of the first: \(debug.first?.metadata.keys.sorted().joined(separator: ", ") ?? "none")")
    #else
    lines.append("swift-log: swift run --traits Logging RxNetworkKitDemo")
    #endif

    #if Metrics
    recording.dispose()
    let durations = metrics.timers(label: HTTPClientMetrics.requestDuration)
    let attempts = durations.reduce(0) { $0 + $1.values.count }
    let retries = metrics.counterTotal(label: HTTPClientMetrics.retries)
    let active = metrics.meters(label: HTTPClientMetrics.activeRequests).compactMap(\.lastValue).reduce(0, +)
    lines.append("swift-metrics: \(attempts) values of \(HTTPClientMetrics.requestDuration) in \(durations.count) series "
                 + "(by status), \(retries) retry counted, \(HTTPClientMetrics.activeRequests) back to \(Int(active))")
    #else
    lines.append("swift-metrics: swift run --traits Metrics RxNetworkKitDemo")
    #endif

    #if Tracing
    let spans = tracer.finishedSpans
    let attemptEvents = spans.reduce(0) { $0 + $1.events.filter { $0.name == "http.attempt" }.count }
    let injected = tracer.performedContextInjections.count
    lines.append("swift-distributed-tracing: \(spans.count) client spans, \(attemptEvents) attempt events, "
                 + "\(injected) attempts carried the span's context")
    #else
    lines.append("swift-distributed-tracing: swift run --traits Tracing RxNetworkKitDemo")
    #endif

    #if ServiceLifecycle
    // One request in flight (the server answers it after 50 ms) when the group shuts down.
    let inFlight = LockedLines()
    _ = client.rx.request(GetUser(id: 43)).subscribe(onSuccess: { _ in inFlight.append("ok") }, onFailure: { inFlight.append("\($0)") })
    let drained = serviceGroupDrain(service)
    lines.append("swift-service-lifecycle: a ServiceGroup's graceful shutdown drained the client in \(ms(drained)) "
                 + "(the request in flight: \(inFlight.lines.first ?? "unanswered"))")
    #else
    lines.append("swift-service-lifecycle: swift run --traits ServiceLifecycle RxNetworkKitDemo (a daemon: RxNetworkKitDaemon)")
    _ = outcome(of: client.shutdown(gracePeriod: 1).andThen(Single.just(())))
    #endif
    return lines
}

#if ServiceLifecycle
/// Runs the client's service in a group, triggers its graceful shutdown, and waits for the group to
/// end; returns the milliseconds from the trigger to the end.
func serviceGroupDrain(_ service: HTTPClientService) -> Double {
    let done = DispatchSemaphore(value: 0)
    let elapsed = LockedLines()
    Task {
        let group = ServiceGroup(services: [service], logger: Logger(label: "demo.lifecycle"))
        async let run: Void = group.run()
        try? await Task.sleep(for: .milliseconds(10))
        let start = DispatchTime.now().uptimeNanoseconds
        await group.triggerGracefulShutdown()
        try? await run
        elapsed.append(String(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000))
        done.signal()
    }
    _ = done.wait(timeout: .now() + 10)
    return elapsed.lines.first.flatMap(Double.init) ?? -1
}
#endif
