import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// The send action: what happens between the last interceptor and the transport.
extension HTTPCall {
    /// Sends `attempt`: plugins' `prepare`, header validation, the deadline's share, `willSend`, the
    /// transport. A request that fails its checks is answered with the failure without sending.
    func send(_ attempt: CallStateMachine.Attempt) {
        var request = attempt.request
        let info = HTTPRequestInfo(
            id: id, method: plan.method, path: plan.path,
            authorizationType: plan.authorizationType, declaresAuthorization: plan.declaresAuthorization,
            requestName: plan.requestName, callID: id, attempt: attempt.number
        )
        let plugins = client.plugins
        if attempt.headersChanged || !plugins.isEmpty {
            // The client checked its own headers when it built the request: only what interceptors
            // and plugins may have added needs checking again.
            do throws(HTTPClientError) {
                if !plugins.isEmpty {
                    request = try HTTPPluginBridge.prepare(request, plugins: plugins, info: info)
                }
                try HeaderValidation.validate(request.headers, url: request.url)
            } catch {
                apply { $0.notSent(attempt, error: error) }
                return
            }
        }
        if let timeLeft {
            guard timeLeft > 0 else {
                apply { $0.terminate(.deadline) }
                return
            }
            if timeLeft < plan.timeout {
                request.timeoutInterval = timeLeft
            }
        }
        let now = client.clock.now
        guard core.withLock({ $0.machine.sending(attempt, request: request, info: info, at: now) }) else { return }
        if !plugins.isEmpty {
            HTTPPluginBridge.willSend(request, plugins: plugins, info: info)
        }
        emit(.attemptStarted(attempt: attempt.number))
        let number = attempt.number
        let inline = client.transportCallsBackOnCallbackQueue
        let url = request.url
        let exchange: Disposable
        if let pump = plan.stream {
            pump.begin(attempt: number) { [weak self] failure in self?.streamEnded(failure: failure) }
            var options = client.transportOptions
            options.maxStreamBacklogBytes = pump.maxBufferedBytes
            options.streamDemand = pump
            exchange = client.transport.stream(request, options: options) { [self] part in
                switch part {
                case .success(.head(let head)):
                    // The head answers the attempt (status, plugins, retries); the body flows on.
                    pump.noteHead(attempt: number)
                    let response = HTTPResponse(head)
                    apply(inline: inline) { $0.transportAnswered(attempt: number, .success(response)) }
                case .success(let bodyOrEnd):
                    pump.receive(.success(bodyOrEnd), attempt: number)
                case .failure(let error):
                    let failure = URLErrorClassification.classify(error, url: url)
                    if pump.headSeen(attempt: number) {
                        pump.receive(.failure(failure), attempt: number)
                    } else {
                        apply(inline: inline) { $0.transportAnswered(attempt: number, .failure(failure)) }
                    }
                }
            }
        } else if let slot = plan.upgrade {
            exchange = client.transport.upgrade(request, options: client.transportOptions) { [self] result in
                let answer: Result<HTTPResponse, HTTPClientError>
                switch result {
                case .success(.switched(let head, let connection)):
                    if let refusal = slot.accept(head, connection: connection) {
                        answer = .failure(refusal)
                    } else {
                        answer = .success(HTTPResponse(head))
                    }
                case .success(.answered(let response)):
                    answer = .success(response)
                case .failure(let error):
                    answer = .failure(URLErrorClassification.classify(error, url: url))
                }
                apply(inline: inline) { $0.transportAnswered(attempt: number, answer) }
            }
        } else {
            exchange = client.transport.send(request, options: client.transportOptions) { [self] result in
                let answer = result.mapError { URLErrorClassification.classify($0, url: url) }
                apply(inline: inline) { $0.transportAnswered(attempt: number, answer) }
            }
        }
        apply { $0.exchangeStarted(attempt: number, exchange) }
    }
}
