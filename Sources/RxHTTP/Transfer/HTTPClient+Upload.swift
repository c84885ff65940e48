import Foundation
@_spi(RxNetworkKitInternals) import RxCore

extension Reactive where Base: HTTPClient {
    /// Uploads the file at `file` as the body of `request`, streamed from the disk as it is sent,
    /// never whole in memory.
    ///
    /// The body is the file's bytes with its length as `Content-Length` (`Content-Type:
    /// application/octet-stream` unless the request sets one; the request's own body is not sent).
    /// The request goes through the client like any other — interceptors, authentication, host
    /// protection, the retry policy — and every attempt reads the file from its start; a request
    /// that is not idempotent is sent again only as the idempotency rules allow (`.keyed`).
    /// Progress follows the socket (URLSession's sent bytes, the AsyncHTTPClient transport's
    /// writes): monotone, at most every 64 KiB or 100 ms, ending at the file's length once the
    /// server accepted it (an acceptable status).
    ///
    /// - Parameters:
    ///   - request: The request (a PUT or a POST); its `Response` type is not used.
    ///   - file: The file to send.
    ///   - options: `maxFileSize` bounds the file.
    /// - Returns: A cold `Observable`: each subscription uploads; disposing cancels. It fails with an
    ///   `HTTPClientError`: `.fileSystem` (nothing sent) for a file that cannot be read or is larger
    ///   than `options.maxFileSize`, or the request's own failure.
    /// - Note: Progress arrives on the upload's own serial queue.
    public func upload<R: Request>(_ request: R, fromFile file: URL, options: TransferOptions = TransferOptions()) -> Observable<TransferProgress> {
        base.uploadObservable(base.requestParts(for: request), fromFile: file, options: options)
    }
}

extension HTTPClient {
    func uploadObservable(_ parts: RequestParts, fromFile file: URL, options: TransferOptions) -> Observable<TransferProgress> {
        let scheduler = options.scheduler ?? configuration.scheduler
        return Observable.createCapturingNonSendable { [self] observer in
            let length: Int64
            do {
                length = try Self.uploadLength(of: file, limit: options.maxFileSize)
            } catch {
                observer.onError(error)
                return Disposables.create()
            }
            // One queue for every event, so that progress from the transport's thread and the end
            // from the call's never cross; the throttle drops what comes after the end.
            let queue = DispatchQueue(label: "RxHTTP.upload")
            let throttle = LockedState<ProgressThrottle?>.make(ProgressThrottle())
            var parts = parts
            parts.fileBody = HTTPFileBody(url: file, length: length) { sent in
                guard let progress = throttle.withLock({ $0?.next(sent, expected: length, now: scheduler.now) }) else { return }
                queue.async { observer.onNext(progress) }
            }
            let handle = send(parts, policy: configuration.retryPolicy, decode: { response, _ in response }, completion: { result in
                let last = throttle.withLock { throttle -> TransferProgress? in
                    defer { throttle = nil }
                    return throttle?.last(length, expected: length)
                }
                queue.async {
                    switch result {
                    case .success:
                        if let last { observer.onNext(last) }
                        observer.onCompleted()
                    case .failure(let error):
                        observer.onError(error)
                    }
                }
            })
            return Disposables.create { handle.cancel() }
        }
    }

    /// The length of the regular file at `file`.
    ///
    /// - Throws: `.fileSystem` (nothing sent) when it cannot be read or is larger than `limit`.
    private static func uploadLength(of file: URL, limit: Int64) throws(HTTPClientError) -> Int64 {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        } catch {
            throw HTTPClientError(.fileSystem, message: "cannot read the upload's file", underlying: error, phase: .notSent)
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular, let size = (attributes[.size] as? NSNumber)?.int64Value,
              FileManager.default.isReadableFile(atPath: file.path) else {
            throw HTTPClientError(.fileSystem, message: "the upload's source is not a readable regular file", phase: .notSent)
        }
        guard size <= limit else {
            throw HTTPClientError(.fileSystem, message: "the upload's \(size) bytes pass the limit of \(limit)", phase: .notSent)
        }
        return size
    }
}
