// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
@_spi(TransportSupport) import RxHTTP

/// A file body for AsyncHTTPClient: read from its start on every attempt in 64 KiB chunks off the
/// event loop (a serial queue does the blocking reads), each written once the previous one was,
/// so that memory holds one chunk; progress is reported as NIO takes each chunk.
enum FileBodyStream {
    static let chunkSize = 64 << 10

    /// AsyncHTTPClient's body for `file`, with its length as `Content-Length`.
    static func body(_ file: HTTPFileBody, eventLoop: any EventLoop) -> AsyncHTTPClient.HTTPClient.Body {
        .stream(contentLength: file.length) { writer in
            let promise = eventLoop.makePromise(of: Void.self)
            let queue = DispatchQueue(label: "RxNetworkKit.FileBodyStream")
            queue.async {
                let handle: FileHandle
                do {
                    handle = try FileHandle(forReadingFrom: file.url)
                } catch {
                    promise.fail(RxHTTP.HTTPClientError(
                        .fileSystem, message: "cannot read the upload's file",
                        underlying: error, phase: .notSent
                    ))
                    return
                }
                pump(handle: handle, file: file, writer: writer, queue: queue, sent: 0, promise: promise)
            }
            return promise.futureResult
        }
    }

    /// Reads the next chunk on `queue` and writes it; ends at the file's end, which must be its
    /// announced length.
    private static func pump(
        handle: FileHandle, file: HTTPFileBody, writer: AsyncHTTPClient.HTTPClient.Body.StreamWriter, queue: DispatchQueue,
        sent: Int64, promise: EventLoopPromise<Void>
    ) {
        let chunk: Data
        do {
            chunk = try handle.read(upToCount: chunkSize) ?? Data()
        } catch {
            try? handle.close()
            promise.fail(RxHTTP.HTTPClientError(
                .fileSystem, message: "cannot read the upload's file",
                underlying: error, phase: .sentWithoutResponse
            ))
            return
        }
        guard !chunk.isEmpty, sent < file.length else {
            try? handle.close()
            if sent == file.length {
                promise.succeed(())
            } else {
                promise.fail(RxHTTP.HTTPClientError(
                    .fileSystem, message: "the upload's file changed size while it was sent (\(sent) of \(file.length) bytes)",
                    phase: .sentWithoutResponse
                ))
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
                    // The end goes out with the last write, not one read later: AsyncHTTPClient
                    // pauses a body stream whose response head (a status >= 300) arrives before
                    // its end, and then never finishes the request.
                    try? handle.close()
                    promise.succeed(())
                } else {
                    queue.async { pump(handle: handle, file: file, writer: writer, queue: queue, sent: total, promise: promise) }
                }
            case .failure(let error):
                try? handle.close()
                promise.fail(error)
            }
        }
    }
}
#endif
