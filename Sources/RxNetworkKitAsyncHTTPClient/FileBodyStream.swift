// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
@_spi(TransportSupport) import RxHTTP

/// A file body for AsyncHTTPClient: read from its start on every attempt in 64 KiB chunks off the
/// event loop (a serial queue does the blocking reads), each written once the previous one was,
/// so that memory holds one chunk; progress is reported as NIO takes each chunk.
enum FileBodyStream {
    static let chunkSize = 64 << 10

    /// One upload's end, completed once: by the pump (the file was sent, or could not be read), or
    /// by the exchange when the server answered with a status of 300 or more before the body was
    /// sent. AsyncHTTPClient then pauses the body for good — the pending write's future never
    /// completes — and waits for the body to end before it finishes the request.
    final class Ending: Sendable {
        private let promise: EventLoopPromise<Void>
        private let ended = NIOLockedValueBox(false)

        init(promise: EventLoopPromise<Void>) {
            self.promise = promise
        }

        var isEnded: Bool {
            ended.withLockedValue { $0 }
        }

        var futureResult: EventLoopFuture<Void> {
            promise.futureResult
        }

        /// Completes the body stream unless it has ended already.
        func complete(_ result: Result<Void, any Error>) {
            guard ended.withLockedValue({ ended in defer { ended = true }; return !ended }) else { return }
            promise.completeWith(result)
        }
    }

    /// AsyncHTTPClient's body for `file`, with its length as `Content-Length`; `onStart` receives
    /// the upload's ending, for the exchange to end it early.
    static func body(
        _ file: HTTPFileBody, eventLoop: any EventLoop, onStart: @escaping @Sendable (Ending) -> Void
    ) -> AsyncHTTPClient.HTTPClient.Body {
        .stream(contentLength: file.length) { writer in
            // On the loop AsyncHTTPClient starts the body on (its request's), so that the body's end
            // reaches the request in order with the response: with a promise of another loop, an
            // upload answered by a 503 the moment its last byte arrived never finished, in about
            // one test run in four (none in 32 since).
            let ending = Ending(promise: (MultiThreadedEventLoopGroup.currentEventLoop ?? eventLoop).makePromise(of: Void.self))
            onStart(ending)
            let queue = DispatchQueue(label: "RxNetworkKit.FileBodyStream")
            queue.async {
                let handle: FileHandle
                do {
                    handle = try FileHandle(forReadingFrom: file.url)
                } catch {
                    ending.complete(.failure(RxHTTP.HTTPClientError(
                        .fileSystem, message: "cannot read the upload's file",
                        underlying: error, phase: .notSent
                    )))
                    return
                }
                pump(handle: handle, file: file, writer: writer, queue: queue, sent: 0, ending: ending)
            }
            return ending.futureResult
        }
    }

    /// Reads the next chunk on `queue` and writes it; ends at the file's end, which must be its
    /// announced length, or as soon as the upload was ended from outside.
    private static func pump(
        handle: FileHandle, file: HTTPFileBody, writer: AsyncHTTPClient.HTTPClient.Body.StreamWriter, queue: DispatchQueue,
        sent: Int64, ending: Ending
    ) {
        guard !ending.isEnded else {
            try? handle.close()
            return
        }
        let chunk: Data
        do {
            chunk = try handle.read(upToCount: chunkSize) ?? Data()
        } catch {
            try? handle.close()
            ending.complete(.failure(RxHTTP.HTTPClientError(
                .fileSystem, message: "cannot read the upload's file",
                underlying: error, phase: .sentWithoutResponse
            )))
            return
        }
        guard !chunk.isEmpty, sent < file.length else {
            try? handle.close()
            if sent == file.length {
                ending.complete(.success(()))
            } else {
                ending.complete(.failure(RxHTTP.HTTPClientError(
                    .fileSystem, message: "the upload's file changed size while it was sent (\(sent) of \(file.length) bytes)",
                    phase: .sentWithoutResponse
                )))
            }
            return
        }
        // Never more than announced: a file that grew is cut at its length, and then fails above.
        let allowed = chunk.prefix(Int(min(Int64(chunk.count), file.length - sent)))
        let total = sent + Int64(allowed.count)
        writer.write(.byteBuffer(ByteBuffer(bytes: allowed))).whenComplete { result in
            switch result {
            case .success:
                file.didSend(total)
                if total == file.length {
                    // The end goes out with the last write, not one read later.
                    try? handle.close()
                    ending.complete(.success(()))
                } else {
                    queue.async { pump(handle: handle, file: file, writer: writer, queue: queue, sent: total, ending: ending) }
                }
            case .failure(let error):
                try? handle.close()
                ending.complete(.failure(error))
            }
        }
    }
}
#endif
