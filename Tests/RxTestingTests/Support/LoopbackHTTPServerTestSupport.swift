#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RxTesting
import XCTest

/// A blocking TCP client for the cases URLSession cannot express: malformed requests, disconnecting
/// mid-request, several requests on one connection, watching the server close a connection.
final class RawHTTPClient {
    let fd: Int32

    /// Connects to 127.0.0.1:`port`; nil if the connection is refused.
    init?(port: UInt16) {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends `text` as UTF-8; false if the server is gone.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends `bytes`; false if the server is gone.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { socketSend(fd, $0) }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Reads until the server closes the connection (or `timeout` passes) and returns everything read.
    func readToEnd(timeout: TimeInterval = 2) -> String {
        String(decoding: readBytes(timeout: timeout) { _ in false }, as: UTF8.self)
    }

    /// Reads until `isComplete` accepts what was read, the server closes, or `timeout` passes.
    func read(timeout: TimeInterval = 2, until isComplete: (String) -> Bool) -> String {
        String(decoding: readBytes(timeout: timeout) { isComplete(String(decoding: $0, as: UTF8.self)) }, as: UTF8.self)
    }

    /// Reads one response with a Content-Length body (keep-alive friendly).
    func readResponse(timeout: TimeInterval = 2) -> String {
        read(timeout: timeout) { text in
            guard let headEnd = text.range(of: "\r\n\r\n") else { return false }
            let head = text[..<headEnd.lowerBound].lowercased()
            guard let lengthLine = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(lengthLine.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            else { return true }
            return text.utf8.count - text[..<headEnd.upperBound].utf8.count >= length
        }
    }

    /// Whether the server closed the connection within `timeout` (reads and drops any bytes).
    func isClosedByServer(within timeout: TimeInterval) -> Bool {
        var closed = false
        _ = readBytes(timeout: timeout) { _ in false } onClose: { closed = true }
        return closed
    }

    /// The bytes that arrive within `timeout` (as soon as some do); nil once the server closed.
    func readAvailable(timeout: TimeInterval = 2) -> [UInt8]? {
        var closed = false
        let bytes = readBytes(timeout: timeout, until: { !$0.isEmpty }, onClose: { closed = true })
        return bytes.isEmpty && closed ? nil : bytes
    }

    private func readBytes(
        timeout: TimeInterval,
        until isComplete: ([UInt8]) -> Bool,
        onClose: () -> Void = {}
    ) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&pfd, 1, remaining) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                onClose()
                break
            }
            received.append(contentsOf: chunk[0..<count])
            if isComplete(received) { break }
        }
        return received
    }
}

/// URLSession helpers for tests: an ephemeral session without cache or cookies, and blocking calls.
enum TestHTTP {
    /// A fresh ephemeral session with no URL cache.
    static func makeSession(timeout: TimeInterval = 5) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration)
    }

    /// The outcome of one request.
    struct Outcome: Sendable {
        var status: Int?
        var headers: [String: String] = [:]
        var body = Data()
        var error: URLError?

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The response header `name`, looked up case-insensitively.
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    /// Sends `request` and waits for the outcome.
    static func fetch(_ request: URLRequest, session: URLSession) async -> Outcome {
        do {
            let (data, response) = try await session.data(for: request)
            var outcome = Outcome(body: data)
            if let http = response as? HTTPURLResponse {
                outcome.status = http.statusCode
                for (key, value) in http.allHeaderFields {
                    if let key = key as? String, let value = value as? String { outcome.headers[key] = value }
                }
            }
            return outcome
        } catch let error as URLError {
            return Outcome(error: error)
        } catch {
            return Outcome(error: URLError(.unknown))
        }
    }

    /// GETs `url` and waits for the outcome.
    static func get(_ url: URL, session: URLSession) async -> Outcome {
        await fetch(URLRequest(url: url), session: session)
    }

    /// Sends `method` to `url` with `body` and `headers`, and waits for the outcome.
    static func send(
        _ method: String,
        _ url: URL,
        body: Data? = nil,
        headers: [String: String] = [:],
        session: URLSession
    ) async -> Outcome {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return await fetch(request, session: session)
    }
}

private func socketSend(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    #if canImport(Darwin)
    return Darwin.send(fd, bytes.baseAddress, bytes.count, 0)
    #elseif canImport(Musl)
    return Musl.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    #else
    return Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    #endif
}

/// The number of open file descriptors of this process, or nil where /proc is unavailable.
/// The sockets this process has open (Linux `/proc/self/fd`), or nil elsewhere.
///
/// Sockets only: a fresh process (each test under `swift test --parallel`) creates other
/// descriptors lazily — Dispatch's eventfds and epoll instances for its first threads — while a
/// test runs, which are no leak of the server's.
func openSocketCount() -> Int? {
    let directory = "/proc/self/fd"
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
    return entries.filter { entry in
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)"))?.hasPrefix("socket:") ?? false
    }.count
}

/// Polls `condition` every few milliseconds until it holds or `timeout` seconds pass.
func waitUntil(timeout: TimeInterval = 3, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}
