// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import AsyncHTTPClient
import NIOSSL
import Foundation
import RxCore
import RxHTTP
import RxNetworkKitAsyncHTTPClient
import RxTesting
import XCTest

/// What only `AsyncHTTPClientTransport` has: ownership of its AsyncHTTPClient, a borrowed one, and
/// the phases it reads off AsyncHTTPClient's progress.
final class AsyncHTTPClientTransportTests: TransportTestCase {
    func testAnOwnedClientShutsDownWithTheHTTPClientAndComesBackFresh() {
        server.route(.get, "/x", .text("ok"))
        let transport = AsyncHTTPClientTransport()
        XCTAssertTrue(transport.shutsDownWithClient)
        let client = RxHTTP.HTTPClient(baseURL: server.baseURL, transport: transport)
        XCTAssertEqual(success(result(of: client.rx.request(RawText(path: "/x"))), .asyncHTTPClient), "ok")
        let done = expectation(description: "shut down")
        let subscription = client.shutdown(gracePeriod: 1).subscribe { _ in done.fulfill() }
        wait(for: [done], timeout: 5)
        subscription.dispose()
        // The pooled connection was closed by the AsyncHTTPClient's shutdown.
        let closed = Date().addingTimeInterval(3)
        while server.openConnectionCount > 0, Date() < closed { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(server.openConnectionCount, 0)
        // A transport used again after a shutdown makes a fresh AsyncHTTPClient.
        let again = RxHTTP.HTTPClient(baseURL: server.baseURL, transport: transport)
        XCTAssertEqual(success(result(of: again.rx.request(RawText(path: "/x"))), .asyncHTTPClient), "ok")
        transport.shutdown()
    }

    func testABorrowedClientIsNeverShutDownByTheTransport() throws {
        server.route(.get, "/x", .text("ok"))
        let borrowed = AsyncHTTPClient.HTTPClient(eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
        defer { try? borrowed.syncShutdown() }
        let transport = AsyncHTTPClientTransport(borrowing: borrowed)
        XCTAssertFalse(transport.shutsDownWithClient)
        let client = RxHTTP.HTTPClient(baseURL: server.baseURL, transport: transport)
        XCTAssertEqual(success(result(of: client.rx.request(RawText(path: "/x"))), .asyncHTTPClient), "ok")
        let done = expectation(description: "shut down")
        let subscription = client.shutdown(gracePeriod: 1).subscribe { _ in done.fulfill() }
        wait(for: [done], timeout: 5)
        subscription.dispose()
        transport.shutdown()
        // Still usable: nothing shut it down.
        let response = try borrowed.get(url: server.url("/x").absoluteString).wait()
        XCTAssertEqual(response.status.code, 200)
    }

    /// A borrowed client's configuration cannot be read: its sockets' TLS settings are given apart,
    /// and without them a private CA is not trusted.
    func testABorrowedClientsSocketsUseTheTLSSettingsGivenForUpgrades() throws {
        server.route(.get, "/echo", .webSocket([.echo(count: .max)]))
        let relay = try TLSRelay(backendPort: Int(server.port))
        defer { relay.stop() }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try TestCertificate.certificate()])
        let borrowed = AsyncHTTPClient.HTTPClient(
            eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
            configuration: .init(tlsConfiguration: tls, redirectConfiguration: .disallow)
        )
        defer { try? borrowed.syncShutdown() }
        for (upgradeTLS, expected) in [(tls, "echo: over tls"), (nil, "failed: transport, notSent")] as [(TLSConfiguration?, String)] {
            let client = makeClient(
                .asyncHTTPClient, baseURL: URL(string: "https://localhost:\(relay.port)"),
                transport: AsyncHTTPClientTransport(borrowing: borrowed, upgradeTLSConfiguration: upgradeTLS)
            )
            let socket = client.webSocket(path: "/echo", reconnect: ReconnectPolicy.never)
            let outcome = LockedBox("nothing")
            let ended = DispatchSemaphore(value: 0)
            let subscription = socket.messages.subscribe(
                onNext: { message in
                    if case WebSocketMessage.text(let text) = message { outcome.set("echo: \(text)") }
                    ended.signal()
                },
                onError: { error in
                    let error = error as? RxHTTP.HTTPClientError
                    outcome.set("failed: \(error?.code.rawValue ?? "?"), \(error.map { "\($0.phase)" } ?? "?")")
                    ended.signal()
                }
            )
            _ = socket.send(WebSocketMessage.text("over tls")).subscribe(onCompleted: {}, onError: { _ in })
            XCTAssertEqual(ended.wait(timeout: .now() + 5), .success)
            XCTAssertEqual(outcome.value, expected)
            subscription.dispose()
        }
    }

    func testABorrowedClientThatFollowsRedirectsItselfIsRefusedLoudly() {
        server.route(.get, "/jump", LoopbackHTTPResponse.status(302).withHeader("Location", "/landing"))
        server.route(.get, "/landing", .text("x"))
        let borrowed = AsyncHTTPClient.HTTPClient(
            eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
            configuration: .init(redirectConfiguration: .follow(max: 5, allowCycles: false))
        )
        defer { try? borrowed.syncShutdown() }
        let client = RxHTTP.HTTPClient(baseURL: server.baseURL, configuration: .init(retryPolicy: .none), transport: AsyncHTTPClientTransport(borrowing: borrowed))
        let error = failure(result(of: client.rx.request(RawText(path: "/jump"))), .asyncHTTPClient)
        XCTAssertEqual(error?.code, .redirectRefused)
        XCTAssertTrue(error?.message?.contains("disallow") ?? false, String(describing: error))
    }

    func testADeadlinePassedWhileWaitingForAConnectionWasNotSent() {
        // One connection, held by a slow request: the second waits in the pool past its time-out.
        server.route(.get, "/slow", LoopbackHTTPResponse.text("late").delayed(by: 0.5))
        let transport = AsyncHTTPClientTransport(configuration: AsyncHTTPClientTransport.daemonConfiguration(connectionsPerHost: 1))
        let client = RxHTTP.HTTPClient(baseURL: server.baseURL, configuration: .init(retryPolicy: .none), transport: transport)
        let first = client.rx.request(RawText(path: "/slow")).subscribe(onSuccess: { _ in }, onFailure: { _ in })
        defer { first.dispose() }
        XCTAssertEqual(server.waitForRequests(count: 1).count, 1)
        let error = failure(result(of: client.rx.request(RawText(path: "/slow", timeout: 0.1))), .asyncHTTPClient)
        XCTAssertEqual(error?.code, .timedOut)
        XCTAssertEqual(error?.phase, .notSent)
        transport.shutdown()
    }

    func testTheHeaderListGoesOutLineByLineInOrder() {
        server.route(.get, "/x", .text("ok"))
        let transport = AsyncHTTPClientTransport()
        defer { transport.shutdown() }
        let request = HTTPTransportRequest(url: server.url("/x"), headers: ["X-Tag": "a", "Accept": "text/plain", "x-tag": "b"])
        let box = LockedBox<Result<HTTPResponse, any Error>?>(nil)
        let done = expectation(description: "completion")
        let exchange = transport.send(request, options: .standard) { result in box.set(result); done.fulfill() }
        wait(for: [done], timeout: 5)
        exchange.dispose()
        XCTAssertEqual(try box.value?.get().statusCode, 200)
        let fields = server.requests.first?.headers.fields.filter { ["x-tag", "accept"].contains($0.name.lowercased()) }
        XCTAssertEqual(fields?.map(\.value), ["a", "text/plain", "b"], "two lines of one field stay two, in the order given")
    }

    func testTheTransportRefusesCRLFItselfToo() {
        let transport = AsyncHTTPClientTransport()
        defer { transport.shutdown() }
        // A header list keeps the value as given, as a transport may be handed it.
        let request = HTTPTransportRequest(url: server.url("/x"), headers: ["X-Bad": "a\r\nX-Injected: 1"])
        let box = LockedBox<Result<HTTPResponse, any Error>?>(nil)
        let done = expectation(description: "completion")
        let exchange = transport.send(request, options: .standard) { result in box.set(result); done.fulfill() }
        wait(for: [done], timeout: 5)
        exchange.dispose()
        guard case .failure(let error as RxHTTP.HTTPClientError)? = box.value else { return XCTFail("\(String(describing: box.value))") }
        XCTAssertEqual(error.code, .invalidRequest)
        XCTAssertEqual(error.phase, .notSent)
        XCTAssertEqual(server.requests.count, 0)
    }
}
#endif
