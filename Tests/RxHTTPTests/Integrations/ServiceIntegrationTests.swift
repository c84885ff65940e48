// Runs with the package trait `ServiceLifecycle` only (`swift test --traits ServiceLifecycle`).
#if ServiceLifecycle
import Foundation
import Logging
import RxCore
import RxHTTP
import RxTesting
import ServiceLifecycle
import ServiceLifecycleTestKit
import XCTest

/// `HTTPClientService` in a real `ServiceGroup`: a graceful shutdown drains the client, and the
/// group ends once nothing is left.
final class ServiceIntegrationTests: LoopbackClientTestCase {
    func testAGracefulShutdownLetsTheCallInFlightFinishAndRefusesNewOnes() async throws {
        server.route(.get, "/slow", LoopbackHTTPResponse.json(#"{"done":true}"#).delayed(by: 0.2))
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        let group = ServiceGroup(services: [HTTPClientService(client, gracePeriod: 5)], logger: Logger(label: "test"))
        async let running: Void = group.run()
        let inFlight = Task { try await client.send(Raw(path: "/slow")) }
        try await waitForRequest(count: 1)
        await group.triggerGracefulShutdown()
        let answer = try await inFlight.value
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), #"{"done":true}"#)
        try await running
        do {
            _ = try await client.send(Raw(path: "/slow"))
            XCTFail("sent after the shutdown")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error.code, .shutdown)
        }
    }

    func testTheGracePeriodBoundsTheDrain() async throws {
        server.route(.get, "/stuck", LoopbackHTTPResponse.text("late").delayed(by: 3))
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        try await testGracefulShutdown { trigger in
            let service = Task { try await HTTPClientService(client, gracePeriod: 0.1).run() }
            let stuck = Task { try await client.send(Raw(path: "/stuck")) }
            try await waitForRequest(count: 1)
            let start = Date()
            trigger.triggerGracefulShutdown()
            try await service.value
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, "the service ended with its grace period, not the request")
            do {
                _ = try await stuck.value
                XCTFail("the stuck request was delivered")
            } catch let error as HTTPClientError {
                XCTAssertEqual(error.code, .shutdown)
            }
        }
    }

    func testCancellingTheServiceShutsTheClientDownAtOnce() async throws {
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        let service = Task { try await HTTPClientService(client, gracePeriod: 30).run() }
        service.cancel()
        try await service.value
        do {
            _ = try await client.send(Raw(path: "/x"))
            XCTFail("sent after the shutdown")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error.code, .shutdown)
        }
    }

    private func waitForRequest(count: Int) async throws {
        for _ in 0..<200 where server.requests.count < count {
            try await Task.sleep(for: .milliseconds(5))
        }
        XCTAssertEqual(server.requests.count, count)
    }
}

private struct Raw: Request {
    typealias Response = Data
    let path: String
}
#endif
