import Foundation

extension HTTPClient {
    /// What a send needs besides decoding: everything `buildURLRequest` turns into a URLRequest.
    struct RequestParts {
        var baseURL: URL?
        var path: String
        var method: HTTPMethod
        var headers: [String: String]
        var query: [(String, String)]
        var body: (any RequestBody)?
        var timeout: TimeInterval?
        var bypassesSuspension: Bool
        var authorizationType: AuthorizationType?
        var declaresAuthorization: Bool
        var requestName: String
    }

    /// Builds, then sends or holds, one request; a request that cannot be built fails with
    /// `.invalidRequest` on the callback queue and nothing is sent.
    func start<Output>(
        _ parts: RequestParts,
        decode: @escaping (HTTPResponse, ResponseDecodingContext) throws -> Output,
        completion: @escaping (Result<Output, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        let id = makeRequestID()
        let info = HTTPRequestInfo(
            id: id, method: parts.method, path: parts.path,
            authorizationType: parts.authorizationType,
            declaresAuthorization: parts.declaresAuthorization, requestName: parts.requestName
        )
        do throws(HTTPClientError) {
            let urlRequest = try buildURLRequest(parts)
            let call = HTTPCall(client: self, id: id, urlRequest: urlRequest, info: info, decode: decode, completion: completion)
            enqueue(call, bypassesSuspension: parts.bypassesSuspension)
            return HTTPRequestHandle(call: call)
        } catch {
            let call = HTTPCall(client: self, id: id, urlRequest: nil, info: info, decode: decode, completion: completion)
            call.fail(error)
            return HTTPRequestHandle(call: call)
        }
    }

    /// The URLRequest for `parts`: URL, method, merged headers, body, time-out.
    func buildURLRequest(_ parts: RequestParts) throws(HTTPClientError) -> URLRequest {
        let url: URL
        if let base = parts.baseURL {
            url = try URLBuilder.url(base: base, path: parts.path, parameters: parts.query)
        } else if let base = parsedBaseURL {
            url = try URLBuilder.url(base: base, path: parts.path, parameters: parts.query)
        } else {
            throw baseURLError ?? HTTPClientError(.invalidRequest, message: "no base URL")
        }
        guard HeaderValidation.isValidToken(parts.method.rawValue) else {
            throw HTTPClientError(
                .invalidRequest, message: "method \(HeaderValidation.escaped(parts.method.rawValue)) is not a valid HTTP token", url: url
            )
        }
        var headers = HeaderFields.merging(configuration.defaultHeaders, parts.headers)
        var bodyData: Data?
        if let body = parts.body {
            let encoded: HTTPBody?
            do {
                encoded = try body.encodeBody(using: configuration.jsonEncoder)
            } catch let error as HTTPClientError {
                throw HTTPClientError(error.code, message: error.message, url: url, underlying: error.underlying)
            } catch {
                throw HTTPClientError(
                    .invalidRequest, message: "the body cannot be encoded: \(HTTPClientError.describe(error))",
                    url: url, underlying: error
                )
            }
            if let encoded {
                bodyData = encoded.data
                if let contentType = encoded.contentType, HeaderFields.value("Content-Type", in: headers) == nil {
                    headers["Content-Type"] = contentType
                }
            }
        }
        try HeaderValidation.validate(headers, url: url)
        let timeout = parts.timeout ?? configuration.timeout
        var request = URLRequest(url: url, timeoutInterval: timeout > 0 ? timeout : configuration.timeout)
        // URLRequest setters copy the request on Linux: only the ones that change something.
        if parts.method != .get {
            request.httpMethod = parts.method.rawValue
        }
        request.allHTTPHeaderFields = headers
        if let bodyData {
            request.httpBody = bodyData
        }
        return request
    }
}
