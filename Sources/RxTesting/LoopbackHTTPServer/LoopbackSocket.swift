#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place that talks to the OS socket API for `LoopbackHTTPServer` (every `#if` lives here).
///
/// Sockets are plain blocking file descriptors; waiting is done with `poll` so that a wake-up pipe
/// can interrupt any wait. Descriptors are marked close-on-exec.
enum LoopbackSocket {
    /// The outcome of waiting for a socket to become readable.
    enum Readiness {
        case readable
        case woken
        case timedOut
    }

    /// Creates a listening TCP socket bound to 127.0.0.1:`port` (0 picks a free port).
    ///
    /// - Returns: The listener's descriptor and the port it is bound to.
    /// - Throws: `.addressInUse(port:)` if the port is taken, `.socketFailure` for anything else.
    static func makeListener(port: UInt16) throws(LoopbackHTTPServerError) -> (fd: Int32, port: UInt16) {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw .socketFailure(operation: "socket", errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))

        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE { throw .addressInUse(port: port) }
            throw .socketFailure(operation: "bind", errno: code)
        }
        guard listen(fd, 256) == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE { throw .addressInUse(port: port) }
            throw .socketFailure(operation: "listen", errno: code)
        }
        var boundAddress = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &boundAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw .socketFailure(operation: "getsockname", errno: code)
        }
        return (fd, UInt16(bigEndian: boundAddress.sin_port))
    }

    /// Accepts one pending connection, configured blocking, close-on-exec, without Nagle and
    /// without SIGPIPE; nil if none was pending or accepting failed.
    static func accept(_ listener: Int32) -> Int32? {
        while true {
            #if canImport(Darwin)
            let fd = Darwin.accept(listener, nil, nil)
            #elseif canImport(Musl)
            let fd = Musl.accept(listener, nil, nil)
            #else
            let fd = Glibc.accept(listener, nil, nil)
            #endif
            if fd >= 0 {
                configureAccepted(fd)
                return fd
            }
            if errno == EINTR { continue }
            return nil
        }
    }

    private static func configureAccepted(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        var one: Int32 = 1
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Makes the listener non-blocking so that a connection that vanished between `poll` and
    /// `accept` cannot block the accept loop.
    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Waits until `fd` is readable (or hung up), `wakeFD` is readable, or `timeoutMilliseconds`
    /// pass (-1 waits forever). `fd` may be -1 to wait for the wake pipe only (a sleep).
    static func wait(for fd: Int32, wakeFD: Int32, timeoutMilliseconds: Int32) -> Readiness {
        var fds = [
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
        ]
        let count = fd >= 0 ? 2 : 1
        while true {
            let result = poll(&fds, nfds_t(count), timeoutMilliseconds)
            if result < 0 {
                if errno == EINTR { continue }
                return .woken
            }
            if result == 0 { return .timedOut }
            if fds[0].revents != 0 { return .woken }
            return .readable
        }
    }

    /// Reads up to `buffer.count` bytes: the count read, 0 at end of stream, -1 on error.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Writes all of `bytes`; false if the peer is gone or the socket was shut down.
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var pointer = bytes.baseAddress else { return true }
        var remaining = bytes.count
        while remaining > 0 {
            #if canImport(Darwin)
            let written = send(fd, pointer, remaining, 0)
            #else
            let written = send(fd, pointer, remaining, Int32(MSG_NOSIGNAL))
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            if written == 0 { return false }
            pointer += written
            remaining -= written
        }
        return true
    }

    /// Shuts down both directions: wakes any thread blocked on `fd` and tells the peer we are gone.
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Shuts down the sending direction (the peer reads end of stream).
    static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes a descriptor.
    static func close(_ fd: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(fd)
        #elseif canImport(Musl)
        _ = Musl.close(fd)
        #else
        _ = Glibc.close(fd)
        #endif
    }

    /// Creates a close-on-exec pipe; nil if the process is out of descriptors.
    static func makePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    /// Writes one byte to a wake pipe; every `wait` on its read end returns `.woken` from then on.
    static func signal(_ writeFD: Int32) {
        var byte: UInt8 = 1
        while write(writeFD, &byte, 1) < 0 && errno == EINTR {}
    }
}
