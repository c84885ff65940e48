import Foundation

/// The daemon soak's servers, each a child process of this executable: the OAuth token server and
/// the hostile server for the whole run, the API killed (SIGKILL) and started again on its port.
/// The secrets they share with the parent (the token key, the client secret, the password) go in
/// their environment, never on a command line or in a log.
///
/// - Note: Used from the soak's main thread only.
final class DaemonServers {
    let t0: Date
    let journalPath: String
    let oauth: Process
    let oauthURL: URL
    let hostile: Process
    let hostileURL: URL
    private(set) var api: Process
    let apiURL: URL
    private let apiPort: UInt16
    private let environment: [String: String]

    init?(directory: URL, t0: Date, key: SoakTokenKey, clientSecret: String, password: String) {
        environment = [
            SoakTokenKey.environmentName: key.hex,
            OAuthServer.secretVariable: clientSecret,
            OAuthServer.passwordVariable: password,
        ]
        self.t0 = t0
        journalPath = directory.appendingPathComponent("api-journal.log").path
        guard let (oauth, oauthLine) = ChildProcess.start(mode: "serve-oauth", environment: environment),
              let oauthPort = UInt16(oauthLine) else { return nil }
        self.oauth = oauth
        oauthURL = URL(string: "http://127.0.0.1:\(oauthPort)")!
        guard let (hostile, hostileLine) = ChildProcess.start(mode: "serve-hostile"),
              let hostilePort = hostileLine.split(separator: " ").first.flatMap({ UInt16($0) }) else {
            oauth.terminate()
            return nil
        }
        self.hostile = hostile
        hostileURL = URL(string: "http://127.0.0.1:\(hostilePort)")!
        guard let (api, apiPort) = Self.startAPI(port: 0, t0: t0, journalPath: journalPath, environment: environment) else {
            oauth.terminate()
            hostile.terminate()
            return nil
        }
        self.api = api
        self.apiPort = apiPort
        apiURL = URL(string: "http://127.0.0.1:\(apiPort)")!
    }

    private static func startAPI(port: UInt16, t0: Date, journalPath: String, environment: [String: String]) -> (Process, UInt16)? {
        let arguments = ["--port", String(port), "--t0", String(t0.timeIntervalSince1970), "--journal", journalPath]
        guard let (child, line) = ChildProcess.start(mode: "serve-api", arguments: arguments, environment: environment) else { return nil }
        guard let bound = UInt16(line) else {
            print("the API process said: \(line)")
            child.terminate()
            return nil
        }
        return (child, bound)
    }

    /// Kills the API, waits `downtime` seconds, starts it again on its port.
    ///
    /// - Returns: When the new API listened (nil if it could not start: the run fails).
    func restartAPI(downtime: TimeInterval, down: (Date) -> Void) -> Date? {
        down(Date())
        ChildProcess.crash(api)
        Thread.sleep(forTimeInterval: downtime)
        // A port just freed may still be held for a moment by the dying process's sockets.
        for _ in 0..<20 {
            if let (restarted, _) = Self.startAPI(port: apiPort, t0: t0, journalPath: journalPath, environment: environment) {
                api = restarted
                return Date()
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    /// Stops every child (the API included).
    func stopAll() {
        for child in [api, oauth, hostile] where child.isRunning {
            child.terminate()
            child.waitUntilExit()
        }
    }
}
