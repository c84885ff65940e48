import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// One run of a `LoopbackHTTPServer`, from `start()` to `stop()`: the listening socket, the accept
/// thread, one thread per open connection, and a wake-up pipe that interrupts every wait on `stop()`.
///
/// Descriptor ownership: the accept thread closes the listener; connection sockets are closed here,
/// under the lock that `stop()` holds while shutting them down, so a descriptor number is never
/// shut down after it was closed and reused. The wake pipe is closed once every thread is done.
///
/// - Note: Thread-safe.
final class LoopbackServerRun: Sendable {
    /// The most connections served at once; more are closed as soon as they are accepted.
    static let maxConnections = 512

    private struct OpenConnection {
        var fd: Int32
        /// The serving thread, once it started.
        var thread: ObjectIdentifier?
    }

    private struct State {
        var stopping = false
        var acceptLoopRunning = true
        var connections: [Int: OpenConnection] = [:]
        var pipeClosed = false
    }

    let port: UInt16
    private let listenerFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let router: LoopbackRouter
    private let log: LoopbackRequestLog
    private let acceptDrops: LockedState<Int>
    private let state = LockedState.make(State())

    /// Binds the listener and starts accepting.
    ///
    /// - Throws: `LoopbackHTTPServerError` if the port is taken or a socket call fails.
    init(port: UInt16, router: LoopbackRouter, log: LoopbackRequestLog, acceptDrops: LockedState<Int>) throws(LoopbackHTTPServerError) {
        guard let pipe = LoopbackSocket.makePipe() else { throw .socketFailure(operation: "pipe", errno: errno) }
        let listener: (fd: Int32, port: UInt16)
        do {
            listener = try LoopbackSocket.makeListener(port: port)
        } catch {
            LoopbackSocket.close(pipe.read)
            LoopbackSocket.close(pipe.write)
            throw error
        }
        LoopbackSocket.setNonBlocking(listener.fd)
        self.listenerFD = listener.fd
        self.port = listener.port
        self.wakeRead = pipe.read
        self.wakeWrite = pipe.write
        self.router = router
        self.log = log
        self.acceptDrops = acceptDrops
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackHTTPServer accept :\(listener.port)"
        thread.start()
    }

    deinit {
        // Every thread holds the run, so none is left here; close the pipe if `stop()` could not.
        state.withLock { state in
            if !state.pipeClosed {
                LoopbackSocket.close(wakeRead)
                LoopbackSocket.close(wakeWrite)
            }
        }
    }

    /// The number of connections open right now.
    var openConnectionCount: Int {
        state.withLock { $0.connections.count }
    }

    /// Closes the listener and every connection, then waits (at most `timeout` seconds) until all
    /// threads are done. Called from a route handler, it does not wait for its own connection.
    func stop(timeout: TimeInterval = 5) {
        let first = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.stopping = true
            for connection in state.connections.values { LoopbackSocket.shutdownBoth(connection.fd) }
            return true
        }
        if first { LoopbackSocket.signal(wakeWrite) }

        let me = ObjectIdentifier(Thread.current)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let finished = state.withLock { state -> Bool in
                guard !state.acceptLoopRunning else { return false }
                if state.connections.isEmpty && !state.pipeClosed {
                    state.pipeClosed = true
                    LoopbackSocket.close(wakeRead)
                    LoopbackSocket.close(wakeWrite)
                }
                return state.connections.values.allSatisfy { $0.thread == me }
            }
            if finished || Date() >= deadline { return }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    private func acceptLoop() {
        while LoopbackSocket.wait(for: listenerFD, wakeFD: wakeRead, timeoutMilliseconds: -1) == .readable {
            guard let fd = LoopbackSocket.accept(listenerFD) else {
                // Nothing pending after all, or out of descriptors: back off a little.
                _ = LoopbackSocket.wait(for: -1, wakeFD: wakeRead, timeoutMilliseconds: 5)
                continue
            }
            let id = log.recordAcceptedConnection()
            let drop = acceptDrops.withLock { remaining -> Bool in
                guard remaining > 0 else { return false }
                remaining -= 1
                return true
            }
            if drop {
                // A server that dies on accept: closed before a byte of the request is read.
                LoopbackSocket.close(fd)
                continue
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopping, state.connections.count < Self.maxConnections else { return false }
                state.connections[id] = OpenConnection(fd: fd, thread: nil)
                return true
            }
            guard admitted else {
                LoopbackSocket.close(fd)
                continue
            }
            let thread = Thread { [self] in serveConnection(id: id, fd: fd) }
            thread.name = "LoopbackHTTPServer connection \(id)"
            thread.start()
        }
        LoopbackSocket.close(listenerFD)
        state.withLock { $0.acceptLoopRunning = false }
    }

    private func serveConnection(id: Int, fd: Int32) {
        let me = ObjectIdentifier(Thread.current)
        state.withLock { $0.connections[id]?.thread = me }
        LoopbackConnection(fd: fd, id: id, wakeFD: wakeRead, router: router, log: log).serve()
        state.withLock { state in
            if let connection = state.connections.removeValue(forKey: id) {
                LoopbackSocket.close(connection.fd)
            }
        }
    }
}
