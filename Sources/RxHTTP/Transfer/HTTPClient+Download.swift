import Foundation
@_spi(RxNetworkKitInternals) import RxCore

extension Reactive where Base: HTTPClient {
    /// Downloads the body of `request` into the file at `destination`, never whole in memory, and
    /// resumes it after a drop.
    ///
    /// The body streams into a temporary file next to `destination` (at most
    /// `options.maxBufferedBytes` in memory), which is flushed and renamed into place when whole —
    /// its length checked against `Content-Length` when the server gave one; a file already at
    /// `destination` is replaced only then. After a dropped connection, a time-out between bytes or
    /// a short body, the client's retry policy decides whether to go on (its `shouldRetry`, its
    /// delays, `maxAttempts` connections in a row without a byte, its deadline over the whole
    /// download, retry-when-reachable), and the next connection asks for the rest with
    /// `Range: bytes=N-` and `If-Range` (a strong ETag, else `Last-Modified`). A 206 whose
    /// `Content-Range` continues the file appends to it; a 200 (the range ignored, or the file
    /// changed on the server) starts over, as does a response without a validator, so that two
    /// versions are never spliced; a 416 ends the download when the server's length is the file's.
    /// Failures before a head are retried by the call itself, as for any request.
    ///
    /// Progress is monotone, at most every 64 KiB or 100 ms, and ends with the file's size.
    /// `maxResponseBodySize` does not apply; `options.maxFileSize` does.
    ///
    /// - Parameters:
    ///   - request: The request (usually a GET); its `Response` type is not used.
    ///   - destination: Where the file goes; its directory must exist.
    ///   - options: Size and memory bounds, the idle time-out.
    /// - Returns: A cold `Observable`: each subscription downloads; disposing stops and removes the
    ///   temporary file, leaving `destination` as it was. It fails with an `HTTPClientError`
    ///   (`.fileSystem` for the file's own failures) and removes the temporary file.
    /// - Note: Progress arrives on the stream's serial queue (the client's `callbackScheduler` when
    ///   set).
    public func download<R: Request>(_ request: R, to destination: URL, options: TransferOptions = TransferOptions()) -> Observable<TransferProgress> {
        base.downloadObservable(base.requestParts(for: request), to: destination, options: options)
    }
}

extension HTTPClient {
    /// One connection after another until the file is whole; RxCore's `retry(when:)` decides each
    /// resume and its wait, as it does an event stream's reconnects.
    func downloadObservable(_ parts: RequestParts, to destination: URL, options: TransferOptions) -> Observable<TransferProgress> {
        let scheduler = options.scheduler ?? configuration.scheduler
        let policy = configuration.retryPolicy
        let method = parts.method
        return Observable.deferredCapturingNonSendable { [self] in
            let session = DownloadSession(destination: destination, maxFileSize: options.maxFileSize, scheduler: scheduler)
            let reachable: Observable<Void> = policy.retriesWhenReachable
                ? ((parts.baseURL ?? baseURL).flatMap { self.reachability(for: $0) }?.didBecomeReachable ?? .never())
                : .never()
            return downloadConnection(parts, session: session, options: options, scheduler: scheduler)
                .retry(when: { (failures: Observable<Error>) -> Observable<Void> in
                    failures.flatMap { failure -> Observable<Void> in
                        guard !self.isShuttingDown, let wait = session.resumeWait(after: failure, policy: policy, method: method) else {
                            return .error(failure)
                        }
                        guard wait > 0 else { return .just(()) }
                        let timer = Observable<Int>.timer(.seconds(wait), scheduler: scheduler).map { _ in () }
                        return Observable.amb([timer, reachable.take(1)]).take(1)
                    }
                })
                .catch { error in
                    // An `Incomplete` the policy gave up on reads as the client's own kind of error.
                    .error((error as? DownloadSession.Incomplete)?.error ?? error)
                }
                .do(onDispose: { session.discard() })
        }
    }

    /// One connection: writes its body into the session's file, reports progress; completes when
    /// the file is whole and in place.
    private func downloadConnection(
        _ parts: RequestParts, session: DownloadSession, options: TransferOptions, scheduler: SchedulerType
    ) -> Observable<TransferProgress> {
        Observable.createCapturingNonSendable { [self] observer in
            var parts = parts
            do {
                for (name, value) in try session.nextRequestHeaders() {
                    parts.headers[name] = value
                }
            } catch {
                observer.onError(error)
                return Disposables.create()
            }
            let streamOptions = StreamOptions(
                idleTimeout: options.idleTimeout, maxBufferedBytes: options.maxBufferedBytes, scheduler: scheduler
            )
            // A disk slower than the network for longer than the buffer ends the connection after
            // what the buffer holds is written: the next one resumes from there.
            return openStream(parts, options: streamOptions, deliversBufferOnOverflow: true, sink: StreamPump.Sink(
                chunk: { chunk in
                    if let progress = try session.write(chunk) { observer.onNext(progress) }
                },
                end: {
                    if let last = try session.finish() { observer.onNext(last) }
                    observer.onCompleted()
                },
                fail: { error in
                    if let failure = error as? HTTPClientError, session.isWholeAfter(failure) {
                        do {
                            if let last = try session.finish() { observer.onNext(last) }
                            observer.onCompleted()
                        } catch {
                            observer.onError(error)
                        }
                    } else {
                        observer.onError(error)
                    }
                }
            ), onHead: { head in session.accept(head) })
        }
    }
}
