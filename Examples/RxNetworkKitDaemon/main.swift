// A daemon built on swift-service-lifecycle: a poller and the client in one ServiceGroup. SIGTERM
// (or SIGINT) stops the poller and drains the client — requests in flight may finish within the
// grace period, new ones fail with `.shutdown` — and the group ends once nothing is left.
//
//   swift run --traits ServiceLifecycle RxNetworkKitDaemon [seconds=3]
//
// After `seconds` it sends itself SIGTERM, as an orchestrator would, and prints what it drained.
#if ServiceLifecycle
import Foundation
import Logging
import RxNetworkKit
import RxTesting
import ServiceLifecycle
import Synchronization

struct Status: Request {
    typealias Response = JSONValue
    var path: String
}

/// How many polls were answered.
final class AnswerCount: Sendable {
    let value = Atomic<Int>(0)
}

/// Polls one endpoint until the group shuts down, counting the answers.
struct Poller: Service {
    let client: HTTPClient
    let answers: AnswerCount

    func run() async throws {
        // `cancelWhenGracefulShutdown`: the loop ends at the first signal, while the client (a
        // service of its own) still drains what it has in flight.
        do {
            try await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    if (try? await client.send(Status(path: "/status"))) != nil {
                        answers.value.add(1, ordering: .relaxed)
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        } catch is CancellationError {
            // Stopped by the shutdown: a normal end, not a failure of the group.
        }
    }
}

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init).map { min(max($0, 0.5), 60) } ?? 3
let server = LoopbackHTTPServer(requestLogLimit: 0)
server.route(.get, "/status", .json(#"{"ok":true}"#))
server.route(.get, "/slow") { _ in
    Thread.sleep(forTimeInterval: 0.3)
    return .json(#"{"slow":true}"#)
}
do { try server.start() } catch {
    print("could not start the embedded server: \(error)")
    exit(1)
}

var logger = Logger(label: "daemon")
logger.logLevel = .notice
let client = HTTPClient(baseURL: server.baseURL)
let answers = AnswerCount()
let group = ServiceGroup(configuration: .init(
    services: [
        .init(service: Poller(client: client, answers: answers)),
        .init(service: HTTPClientService(client, gracePeriod: 2)),
    ],
    gracefulShutdownSignals: [.sigterm, .sigint],
    logger: logger
))

let started = Date()
// A slow request still in flight when the signal comes: the grace period lets it finish.
let slow = Task {
    try await Task.sleep(for: .seconds(seconds - 0.1))
    return try await client.send(Status(path: "/slow"))
}
Task {
    try await Task.sleep(for: .seconds(seconds))
    kill(getpid(), SIGTERM)
}
do {
    try await group.run()
} catch {
    print("the group failed: \(error)")
}
let slowAnswered = (try? await slow.value) != nil
let afterwards: String
do {
    _ = try await client.send(Status(path: "/status"))
    afterwards = "answered (it should not be)"
} catch let error as HTTPClientError {
    afterwards = "failed with .\(error.code)"
} catch {
    afterwards = "failed: \(error)"
}
print(String(format: "daemon: %d polls answered in %.1f s; SIGTERM drained the client (the slow request in flight %@); "
             + "a request after the shutdown %@; the group ended %.2f s after it started",
             answers.value.load(ordering: .relaxed), seconds, slowAnswered ? "finished" : "did not finish", afterwards,
             Date().timeIntervalSince(started)))
server.stop()
#else
print("RxNetworkKitDaemon needs the trait ServiceLifecycle: swift run --traits ServiceLifecycle RxNetworkKitDaemon")
#endif
