import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// The authenticator's clock in virtual time (one tick is one second), with a custom refresher and
/// a client on a `StubTransport`: proactive refresh at the skew, the storm window, custom failures.
final class OAuthVirtualTimeTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    private lazy var stub = StubTransport(scheduler: scheduler)
    private let refreshes = LockedBox(0)

    private func authenticator(_ credential: OAuthCredential, refresh: @escaping @Sendable (OAuthCredential) -> Single<OAuthCredential>) -> OAuthAuthenticator {
        OAuthAuthenticator(store: InMemoryCredentialStore(credential), refresher: .custom(refresh),
                           maxRefreshes: 2, refreshWindow: 30, scheduler: scheduler)
    }

    private func client(_ auth: OAuthAuthenticator) -> HTTPClient {
        HTTPClient(baseURL: URL(string: "https://api.test")!, configuration: .init(callbackScheduler: scheduler),
                   transport: stub, authenticator: auth)
    }

    /// A refresher that counts its calls and issues `access-<n+1>`, valid for 100 s.
    private var rotating: @Sendable (OAuthCredential) -> Single<OAuthCredential> {
        let refreshes = refreshes
        let scheduler = scheduler
        return { _ in
            let count = refreshes.mutate { $0 += 1; return $0 }
            return .just(OAuthCredential(accessToken: "access-\(count + 1)", refreshToken: "r", expiresAt: scheduler.now.addingTimeInterval(100)))
        }
    }

    func testACredentialIsRefreshedOnceItIsWithinTheSkewOfItsExpiry() {
        stub.stub(path: "/me", with: .json(#"{"id":1,"name":"a"}"#))
        let auth = authenticator(OAuthCredential(accessToken: "access-1", refreshToken: "r", expiresAt: scheduler.now.addingTimeInterval(250)), refresh: rotating)
        let client = client(auth)
        for tick in [10, 200, 219, 220, 221] as [TestTime] {
            scheduler.scheduleAt(tick) { _ = (client.rx.requestObject(path: "/me") as Single<User>).subscribe() }
        }
        scheduler.start()
        // Expires at 250; with a 30 s skew the request at 220 refreshes first, the one at 221 does not.
        XCTAssertEqual(refreshes.value, 1)
        XCTAssertEqual(stub.sentRequests.map { $0.value(forHTTPHeaderField: "Authorization") },
                       ["Bearer access-1", "Bearer access-1", "Bearer access-1", "Bearer access-2", "Bearer access-2"])
    }

    func testTheStormWindowSlides() {
        stub.stub(path: "/me", with: .status(401))
        let auth = authenticator(OAuthCredential(accessToken: "access-1", refreshToken: "r"), refresh: rotating)
        let client = client(auth)
        let outcomes = LockedBox([HTTPClientError.Code]())
        for tick in [10, 11, 12, 45] as [TestTime] {
            scheduler.scheduleAt(tick) {
                _ = (client.rx.requestObject(path: "/me") as Single<User>).subscribe(onFailure: { error in
                    outcomes.mutate { $0.append((error as? HTTPClientError)?.code ?? .transport) }
                })
            }
        }
        scheduler.start()
        // Two refreshes within 30 s, the third refused; 35 s later the window has room again.
        XCTAssertEqual(outcomes.value, [.unacceptableStatusCode, .unacceptableStatusCode, .refreshFailed, .unacceptableStatusCode])
        XCTAssertEqual(refreshes.value, 3)
    }

    func testACustomRefresherThatFailsForTransportReasonsKeepsTheCredential() throws {
        stub.stub(path: "/me", with: .status(401))
        let store = InMemoryCredentialStore(OAuthCredential(accessToken: "access-1", refreshToken: "r"))
        let auth = OAuthAuthenticator(store: store, refresher: .custom { _ in .error(URLError(.notConnectedToInternet)) }, scheduler: scheduler)
        let observer = scheduler.start { (self.client(auth).rx.requestObject(path: "/me") as Single<User>).asObservable() }
        guard case .error(let error as HTTPClientError)? = observer.events.last?.value else { return XCTFail("\(observer.events)") }
        XCTAssertEqual(error.code, .transport)
        XCTAssertNotNil(try store.load())
    }

    func testACustomRefresherThatIsRefusedSignsOut() throws {
        struct Refused: Error {}
        stub.stub(path: "/me", with: .status(401))
        let store = InMemoryCredentialStore(OAuthCredential(accessToken: "access-1", refreshToken: "r"))
        let auth = OAuthAuthenticator(store: store, refresher: .custom { _ in .error(Refused()) }, scheduler: scheduler)
        let lost = LockedBox(0)
        let subscription = auth.didLoseAuthentication.subscribe(onNext: { _ in lost.mutate { $0 += 1 } })
        let observer = scheduler.start { (self.client(auth).rx.requestObject(path: "/me") as Single<User>).asObservable() }
        guard case .error(let error as HTTPClientError)? = observer.events.last?.value else { return XCTFail("\(observer.events)") }
        XCTAssertEqual(error.code, .refreshFailed)
        XCTAssertNil(try store.load())
        XCTAssertEqual(lost.value, 1)
        subscription.dispose()
    }

    func testUpdateHandsANewCredentialToWaitersAndNewRequests() throws {
        stub.stub(where: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer signed-in" }, with: .json(#"{"id":2,"name":"b"}"#))
        stub.stub(where: { $0.value(forHTTPHeaderField: "Authorization") != "Bearer signed-in" }, with: .status(401))
        let auth = authenticator(OAuthCredential(accessToken: "old", refreshToken: "r")) { _ in Single.create { _ in Disposables.create() } }
        let client = client(auth)
        scheduler.scheduleAt(300) { try? auth.update(OAuthCredential(accessToken: "signed-in")) }
        let observer = scheduler.start { (client.rx.requestObject(path: "/me") as Single<User>).asObservable() }
        // 401 at 200, the refresh never answers; the sign-in at 300 releases the replay.
        XCTAssertEqual(observer.events, [.next(300, User(id: 2, name: "b")), .completed(300)])
        XCTAssertEqual(try auth.currentCredential()?.accessToken, "signed-in")
    }
}
