import Foundation
import RxNetworkKit
import RxTesting

/// `serve-hostile`: the routes of `HostileRounds` in a child process, on two servers (the second
/// is the other origin of `/cross-origin`); prints `<port> <other port>`. One control route lets
/// the parent ask for the next accepted connections to be dropped.
enum HostileServer {
    static func serve() -> Never {
        guard let (server, other) = HostileRounds.startServers() else { exit(1) }
        server.route(.post, "/control/drop-on-accept") { request in
            server.dropConnectionsOnAccept(request.queryValue("count").flatMap { Int($0) } ?? 0)
            return .text("ok")
        }
        print("\(server.port) \(other.port)")
        fflush(nil)
        while true { Thread.sleep(forTimeInterval: 3600) }
    }
}

/// The hostile server in its child process, seen from the parent: its URL, and its one control,
/// sent by `control` (a client of its own, outside the soak's accounting).
final class RemoteHostileServer: HostileTarget {
    let baseURL: URL
    private let control: HTTPClient

    private struct DropOnAccept: Request {
        typealias Response = String
        let count: Int
        let baseURL: URL?
        var path: String { "/control/drop-on-accept" }
        var method: HTTPMethod { .post }
        var query: [String: Any?] { ["count": count] }
    }

    init(baseURL: URL, control: HTTPClient) {
        self.baseURL = baseURL
        self.control = control
    }

    func dropConnectionsOnAccept(_ count: Int) {
        // The control request may itself open the connection a pending drop closes: then it has
        // consumed that drop and fails, and the next try gets through.
        for _ in 0..<3 {
            if (try? control.rx.request(DropOnAccept(count: count, baseURL: baseURL)).toBlocking(timeout: 5).single()) != nil { return }
        }
        print("  the hostile server did not take drop-on-accept \(count)")
    }
}
