// The only file of RxReachability that talks to the C socket API: every `#if canImport` lives here.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A resolved IPv4 or IPv6 socket address, kept as the bytes of its `sockaddr` so that no other
/// file needs the C types.
struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// `AF_INET` or `AF_INET6`.
    let family: Int32
    /// The `sockaddr_in` / `sockaddr_in6` bytes.
    let bytes: [UInt8]

    /// The numeric host and port, e.g. `127.0.0.1:80` or `[::1]:80`.
    var description: String {
        var host = [CChar](repeating: 0, count: 64)
        var service = [CChar](repeating: 0, count: 16)
        let status = bytes.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.baseAddress else { return -1 }
            return getnameinfo(
                base.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count),
                &host, socklen_t(host.count), &service, socklen_t(service.count),
                NI_NUMERICHOST | NI_NUMERICSERV
            )
        }
        guard status == 0 else { return "<address family \(family)>" }
        let hostText = SocketCalls.string(fromNulTerminated: host)
        let serviceText = SocketCalls.string(fromNulTerminated: service)
        return family == AF_INET6 ? "[\(hostText)]:\(serviceText)" : "\(hostText):\(serviceText)"
    }
}

/// How a non-blocking `connect` started.
enum ConnectStart: Sendable, Equatable {
    /// Connected at once (possible on loopback).
    case connected
    /// The handshake is under way; wait for the socket to become writable.
    case inProgress
    /// Failed at once with this `errno`.
    case failed(Int32)
}

/// The outcome of opening a socket.
enum SocketOpen: Sendable, Equatable {
    /// The new descriptor.
    case opened(Int32)
    /// The `errno` of the failure.
    case failed(Int32)
}

/// Thin, non-blocking wrappers around the socket calls the probe needs. None of them blocks
/// except `resolve`, which runs `getaddrinfo` and must be called off the caller's thread.
enum SocketCalls {
    /// Parses an IPv4 or IPv6 literal (no brackets, no scope) without touching the resolver.
    static func numericAddress(host: String, port: UInt16) -> SocketAddress? {
        var address4 = sockaddr_in()
        if inet_pton(AF_INET, host, &address4.sin_addr) == 1 {
            address4.sin_family = sa_family_t(AF_INET)
            address4.sin_port = port.bigEndian
            #if canImport(Darwin)
            address4.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            return SocketAddress(family: AF_INET, bytes: withUnsafeBytes(of: &address4) { Array($0) })
        }
        var address6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &address6.sin6_addr) == 1 {
            address6.sin6_family = sa_family_t(AF_INET6)
            address6.sin6_port = port.bigEndian
            #if canImport(Darwin)
            address6.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            return SocketAddress(family: AF_INET6, bytes: withUnsafeBytes(of: &address6) { Array($0) })
        }
        return nil
    }

    /// Resolves `host` to every IPv4 and IPv6 stream address with `getaddrinfo` (blocking).
    ///
    /// No `AI_ADDRCONFIG`: a machine with only a loopback interface would otherwise resolve
    /// nothing; an address of a family with no route simply fails its connect.
    static func resolve(host: String, port: UInt16) -> Result<[SocketAddress], TCPProbeError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocketType
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        defer {
            if let list { freeaddrinfo(list) }
        }
        guard status == 0 else {
            var code = status
            var message = string(fromNulTerminated: gai_strerror(status))
            if status == EAI_SYSTEM {
                code = errno
                message = errorMessage(code)
            }
            return .failure(TCPProbeError(
                code: .resolutionFailed, systemError: code,
                message: "cannot resolve \(host): \(message)"
            ))
        }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            let info = entry.pointee
            cursor = info.ai_next
            guard info.ai_family == AF_INET || info.ai_family == AF_INET6, let raw = info.ai_addr else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(raw), count: Int(info.ai_addrlen)))
            let address = SocketAddress(family: info.ai_family, bytes: bytes)
            if !addresses.contains(address) { addresses.append(address) }
        }
        return .success(addresses)
    }

    /// Opens a TCP socket that is non-blocking and close-on-exec (and, on Apple platforms, never
    /// raises SIGPIPE); returns the descriptor or the `errno`.
    static func openNonBlockingStreamSocket(family: Int32) -> SocketOpen {
        #if canImport(Glibc)
        let type = streamSocketType | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(family, type, 0)
        guard descriptor >= 0 else { return .failed(errno) }
        return .opened(descriptor)
        #else
        let descriptor = socket(family, streamSocketType, 0)
        guard descriptor >= 0 else { return .failed(errno) }
        let flags = fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0,
              fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else {
            let failure = errno
            close(descriptor)
            return .failed(failure)
        }
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return .opened(descriptor)
        #endif
    }

    /// Starts a non-blocking connect of `descriptor` to `address`.
    static func startConnect(_ descriptor: Int32, to address: SocketAddress) -> ConnectStart {
        let status = address.bytes.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.baseAddress else { return -1 }
            return connect(descriptor, base.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        if status == 0 { return .connected }
        let failure = errno
        // EINTR on a non-blocking connect: the handshake goes on asynchronously (POSIX).
        if failure == EINPROGRESS || failure == EINTR { return .inProgress }
        return .failed(failure)
    }

    /// The outcome of a connect that became writable: 0 if connected, else its `errno` (SO_ERROR).
    static func pendingError(_ descriptor: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
        return value
    }

    /// Closes `descriptor` (never retried on EINTR: on Linux the descriptor is gone either way).
    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #elseif canImport(Darwin)
        _ = Darwin.close(descriptor)
        #endif
    }

    /// The text of an `errno` value.
    static func errorMessage(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    static func string(fromNulTerminated pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    static func string(fromNulTerminated buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `ETIMEDOUT`, the `errno` a timed-out probe reports; here so that platform constants stay in
    /// this file.
    static let timedOutErrno: Int32 = ETIMEDOUT

    private static var streamSocketType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }
}
