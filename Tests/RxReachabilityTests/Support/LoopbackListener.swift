import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP listener on a loopback address that the tests open, close (so the port refuses) and
/// reopen on the same port. It accepts and closes every connection at once, unless created with
/// `accepting: false` (then the backlog fills and later SYNs are dropped: a black hole).
// @unchecked Sendable: `descriptor`, `port` and `source` are only written under `lock` (and `port` before use).
final class LoopbackListener: @unchecked Sendable {
    enum Family {
        case ipv4, ipv6
        var host: String { self == .ipv4 ? "127.0.0.1" : "::1" }
    }

    struct Failure: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    let family: Family
    private(set) var port: UInt16 = 0
    private let accepting: Bool
    private let backlog: Int32
    private let queue = DispatchQueue(label: "loopback-listener")
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var source: DispatchSourceRead?
    private var accepted = 0

    /// How many connections this listener has accepted.
    var acceptedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return accepted
    }

    init(family: Family = .ipv4, accepting: Bool = true, backlog: Int32 = 128) throws {
        self.family = family
        self.accepting = accepting
        self.backlog = backlog
        try open(port: 0)
    }

    deinit {
        close()
    }

    var host: String { family.host }

    /// Stops listening: connects to the port are refused from now on.
    func close() {
        lock.lock()
        let (fd, source) = (descriptor, self.source)
        descriptor = -1
        self.source = nil
        lock.unlock()
        if let source {
            // Its cancel handler closes the descriptor; wait for it so that the port refuses (and
            // descriptor counts are settled) when `close` returns.
            let closed = DispatchSemaphore(value: 0)
            source.setCancelHandler {
                _ = closeDescriptor(fd)
                closed.signal()
            }
            source.cancel()
            closed.wait()
        } else if fd >= 0 {
            _ = closeDescriptor(fd)
        }
    }

    /// Listens again on the same port.
    func reopen() throws {
        try open(port: port)
    }

    private func open(port requested: UInt16) throws {
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        #if canImport(Glibc)
        let fd = socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(domain, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if family == .ipv4 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = requested.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = requested.bigEndian
            address.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard bound == 0 else {
            let code = errno
            _ = closeDescriptor(fd)
            throw Failure(call: "bind", code: code)
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            _ = closeDescriptor(fd)
            throw Failure(call: "listen", code: code)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let actualPort: UInt16 = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        lock.lock()
        descriptor = fd
        port = actualPort
        if accepting {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [weak self] in
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                _ = closeDescriptor(client)
                guard let self else { return }
                self.lock.lock()
                self.accepted += 1
                self.lock.unlock()
            }
            source.resume()
            self.source = source
        }
        lock.unlock()
    }
}

/// Opens a non-blocking client connection to fill a listener's backlog; returns the descriptor.
func startRawConnect(host: String, port: UInt16) -> Int32 {
    let v6 = host.contains(":")
    #if canImport(Glibc)
    let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    #else
    let fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    return fd
}

/// Whether a raw connect on `fd` completed within `seconds` (poll for writability, then SO_ERROR).
func rawConnectCompleted(_ fd: Int32, within seconds: Double) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    guard poll(&entry, 1, Int32(seconds * 1_000)) == 1 else { return false }
    var error: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
    return error == 0
}

func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    return Glibc.close(fd)
    #else
    return Darwin.close(fd)
    #endif
}

/// The number of open file descriptors of this process (Linux: entries of /proc/self/fd), or nil.
func openDescriptorCount() -> Int? {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count
}

/// The number of threads of this process (Linux: entries of /proc/self/task), or nil.
func threadCount() -> Int? {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task"))?.count
}

/// Waits until `condition` holds or `timeout` passes; returns whether it held.
func waitUntil(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.002)
    }
    return true
}

/// A value behind a lock, for results written by callbacks on other threads.
// @unchecked Sendable: `stored` is only touched under `lock`.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func mutate<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}
