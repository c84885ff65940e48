import Foundation
import RxCore
import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// Plugins as the innermost interceptor of the one chain, and a request that cannot be built as a
/// call like any other: through a real transport to a real server.
final class PluginInterceptorTests: LoopbackClientTestCase {
    /// Records every hook, with the attempt's number and what it saw.
    private final class Recorder: HTTPPlugin {
        private let state = Mutex<[String]>([])
        var lines: [String] { state.withLock { $0 } }

        func prepare(_ request: URLRequest, info: HTTPRequestInfo) -> URLRequest {
            let outer = request.value(forHTTPHeaderField: "X-Outer") ?? "-"
            state.withLock { $0.append("prepare \(info.attempt) outer=\(outer)") }
            return request
        }

        func willSend(_ request: URLRequest, info: HTTPRequestInfo) {
            state.withLock { $0.append("willSend \(info.attempt)") }
        }

        func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, request: URLRequest, info: HTTPRequestInfo) {
            state.withLock { $0.append("didReceive \(info.attempt) \(Self.label(result))") }
        }

        func didFinish(_ summary: HTTPCallSummary, info: HTTPRequestInfo) {
            let outcome: String
            switch summary.outcome {
            case .success(let status): outcome = String(status)
            case .failure(let error): outcome = error.code.rawValue
            }
            state.withLock { $0.append("didFinish \(outcome) after \(summary.attempts)") }
        }

        static func label(_ result: Result<HTTPResponse, HTTPClientError>) -> String {
            switch result {
            case .success(let response): String(response.statusCode)
            case .failure(let error): error.statusCode.map(String.init) ?? error.code.rawValue
            }
        }
    }

    /// Turns a 418 into a 200, as Moya's `process` may.
    private struct TeapotIsFine: HTTPPlugin {
        func process(_ result: Result<HTTPResponse, HTTPClientError>, info: HTTPRequestInfo) -> Result<HTTPResponse, HTTPClientError> {
            guard case .failure(let error) = result, error.statusCode == 418 else { return result }
            return .success(HTTPResponse(statusCode: 200, body: Data("tea".utf8)))
        }
    }

    /// An outer interceptor: marks the request, and records what comes back to it and what the
    /// observation hooks hear.
    private final class Outer: HTTPInterceptor {
        private let state = Mutex<[String]>([])
        var lines: [String] { state.withLock { $0 } }

        func prepare(_ request: HTTPTransportRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
            var marked = request
            marked.headers.replaceOrAdd(name: "X-Outer", value: "yes")
            completion(.proceed(marked))
            return nil
        }

        func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict {
            state.withLock { $0.append("didReceive \(Recorder.label(result))") }
            return .proceed
        }

        func attemptDidEnd(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) {
            state.withLock { $0.append("attemptDidEnd \(Recorder.label(result))") }
        }

        func callDidFinish(_ summary: HTTPCallSummary, for call: HTTPCall) {
            state.withLock { $0.append("callDidFinish after \(summary.attempts)") }
        }
    }

    private struct Text: Request {
        typealias Response = String
        var path: String
        var headers: [String: String] = [:]
    }

    private func client(
        plugins: [any HTTPPlugin], interceptors: [any HTTPInterceptor] = [], policy: RetryPolicy = .none,
        callbackQueue: DispatchQueue? = nil, coalescing: Bool = false
    ) -> HTTPClient {
        HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(
                timeout: 5, callbackQueue: callbackQueue, retryPolicy: policy, interceptors: interceptors, coalescing: coalescing
            ),
            plugins: plugins
        )
    }

    /// Every event of the client, as `kind` text, while `body` runs.
    private func events(of client: HTTPClient, during body: () -> Void) -> [(id: UInt64?, kind: String)] {
        let seen = Mutex<[(id: UInt64?, kind: String)]>([])
        let subscription = client.events.subscribe(onNext: { event in
            let kind: String
            switch event.kind {
            case .started: kind = "started"
            case .attemptStarted(let attempt): kind = "attempt \(attempt)"
            case .completed(.failure(let code, _, _), _, let attempts): kind = "completed \(code.rawValue) after \(attempts)"
            case .completed(.success(let status), _, let attempts): kind = "completed \(status) after \(attempts)"
            default: kind = "other"
            }
            seen.withLock { $0.append((event.requestID, kind)) }
        })
        body()
        subscription.dispose()
        return seen.withLock { $0 }
    }

    // MARK: Plugins on the chain

    func testPluginsRunInsideEveryInterceptorAndTheOuterOnesSeeWhatProcessMade() {
        server.route(.get, "/tea", .status(418))
        let recorder = Recorder()
        let outer = Outer()
        let client = client(plugins: [recorder, TeapotIsFine()], interceptors: [outer])
        XCTAssertEqual(success(result(of: client.rx.request(Text(path: "/tea")))), "tea")
        // The plugin saw the request as the outer interceptor left it, and the answer first.
        XCTAssertEqual(recorder.lines, ["prepare 1 outer=yes", "willSend 1", "didReceive 1 418", "didFinish 200 after 1"])
        // The outer interceptor, and its observation hook, got the plugins' replacement.
        XCTAssertEqual(outer.lines, ["didReceive 200", "attemptDidEnd 200", "callDidFinish after 1"])
        XCTAssertEqual(server.requests.last?.header("X-Outer"), "yes")
    }

    func testEachRetriedAttemptPassesThePluginsWithItsNumber() {
        server.route(.get, "/flaky", responses: [.status(503), .text("ok")])
        let recorder = Recorder()
        let client = client(plugins: [recorder], policy: RetryPolicy(maxAttempts: 2, delay: .immediate))
        XCTAssertEqual(success(result(of: client.rx.request(Text(path: "/flaky")))), "ok")
        XCTAssertEqual(recorder.lines, [
            "prepare 1 outer=-", "willSend 1", "didReceive 1 503",
            "prepare 2 outer=-", "willSend 2", "didReceive 2 200", "didFinish 200 after 2",
        ])
    }

    func testAPluginHeaderThatFailsTheLastChecksIsAnsweredToThePluginsAndNotSent() {
        let recorder = Recorder()
        let client = client(plugins: [HeaderInjectionPlugin(headers: ["X-Evil": "a\r\nHost: evil"]), recorder])
        XCTAssertEqual(failure(result(of: client.rx.request(Text(path: "/x"))))?.code, .invalidRequest)
        XCTAssertTrue(server.requests.isEmpty)
        // Every willSend has its didReceive, even for an attempt the transport never saw.
        XCTAssertEqual(recorder.lines, ["prepare 1 outer=-", "willSend 1", "didReceive 1 invalidRequest", "didFinish invalidRequest after 0"])
    }

    func testCoalescedCallsShareOneExchangeAndEachFinishesOnceForThePlugins() {
        server.route(.get, "/shared", LoopbackHTTPResponse.text("one").delayed(by: 0.2))
        let recorder = Recorder()
        let client = client(plugins: [recorder], coalescing: true)
        let done = expectation(description: "three answers")
        done.expectedFulfillmentCount = 3
        let subscriptions = (0..<3).map { _ in
            client.rx.request(Text(path: "/shared")).subscribe(onSuccess: { _ in done.fulfill() })
        }
        wait(for: [done], timeout: 5)
        subscriptions.forEach { $0.dispose() }
        XCTAssertEqual(server.requests(to: "/shared").count, 1)
        // The one exchange passed the plugins once; each of the three calls ended once.
        XCTAssertEqual(recorder.lines.filter { $0.hasPrefix("willSend") }.count, 1, "\(recorder.lines)")
        XCTAssertEqual(recorder.lines.filter { $0.hasPrefix("didReceive") }.count, 1, "\(recorder.lines)")
        XCTAssertEqual(recorder.lines.filter { $0.hasPrefix("didFinish") }, Array(repeating: "didFinish 200 after 0", count: 3))
    }

    // MARK: A request that cannot be built

    func testARequestThatCannotBeBuiltIsACallWithEventsPluginsAndObservers() {
        let recorder = Recorder()
        let outer = Outer()
        let client = client(plugins: [recorder], interceptors: [outer])
        var outcome: Result<String, HTTPClientError>?
        let seen = events(of: client) {
            outcome = result(of: client.rx.request(Text(path: "/x", headers: ["Bad Name": "x"])))
        }
        let error = failure(outcome)
        XCTAssertEqual(error?.code, .invalidRequest)
        XCTAssertEqual(error?.attempts, 0)
        XCTAssertTrue(server.requests.isEmpty)
        XCTAssertEqual(seen.map(\.kind), ["started", "completed invalidRequest after 0"])
        XCTAssertNotNil(seen.first?.id)
        XCTAssertEqual(seen.first?.id, seen.last?.id)
        // No attempt: nobody was asked to prepare, and the call's end reached every observer.
        XCTAssertEqual(recorder.lines, ["didFinish invalidRequest after 0"])
        XCTAssertEqual(outer.lines, ["callDidFinish after 0"])
    }

    func testARefusedCallCancelledBeforeItsErrorIsReportedEndsCancelled() {
        let queue = DispatchQueue(label: "busy callbacks")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let recorder = Recorder()
        let client = client(plugins: [recorder], callbackQueue: queue)
        let answer = Mutex<Result<String, HTTPClientError>?>(nil)
        let done = expectation(description: "completion")
        let handle = client.request(Text(path: "/x", headers: ["Bad Name": "x"])) { result in
            answer.withLock { $0 = result }
            done.fulfill()
        }
        // The report waits for the callback queue: the cancel comes first and wins.
        handle.cancel()
        gate.signal()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(failure(answer.withLock { $0 })?.code, .cancelled)
        XCTAssertTrue(waitUntil(timeout: 2) { recorder.lines == ["didFinish cancelled after 0"] }, "\(recorder.lines)")
        XCTAssertTrue(handle.isCancelled)
    }
}
