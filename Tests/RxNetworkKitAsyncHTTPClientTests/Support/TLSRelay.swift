// Compiled with the package trait `AsyncHTTPClient` only.
#if AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL

/// A TLS front for a plain server on 127.0.0.1: each TLS connection it accepts is relayed, byte for
/// byte, to the server behind it — so that `LoopbackHTTPServer`'s routes (its WebSockets too) can be
/// reached over https and wss. Its certificate (`TestCertificate`) names `localhost` and 127.0.0.1.
final class TLSRelay {
    private let channel: any Channel

    /// The port the relay listens on.
    let port: Int

    /// Starts a relay to `backendPort` on 127.0.0.1.
    init(backendPort: Int) throws {
        let context = try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: [.certificate(try TestCertificate.certificate())],
            privateKey: .privateKey(try TestCertificate.privateKey())
        ))
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                // The backend on the same event loop: both pipelines are then set up from it.
                ClientBootstrap(group: child.eventLoop).connect(host: "127.0.0.1", port: backendPort).flatMapThrowing { backend in
                    try backend.pipeline.syncOperations.addHandler(Relay(to: child))
                    try child.pipeline.syncOperations.addHandlers([NIOSSLServerHandler(context: context), Relay(to: backend)])
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
    }

    func stop() {
        try? channel.close().wait()
    }

    /// Writes what one side reads to the other; closes the other when one side closes.
    private final class Relay: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer

        private let partner: any Channel

        init(to partner: any Channel) {
            self.partner = partner
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

/// A self-signed certificate for `localhost` and 127.0.0.1 (P-256, valid until 2126), made for
/// these tests with `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days
/// 36500 -nodes -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1"`. It
/// guards nothing: its key is public here on purpose.
enum TestCertificate {
    static let certificatePEM = """
-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUfXWedW2djqa3We8WRP2pYzWgZsIwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNzIxMzMzM1oYDzIxMjYxMTAz
MjEzMzMzWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASphgs2eJBcZcwHAEFA2gi+JPdYTiQXj+v20dS7st0eH7BiDhDQcaXY
BOynl/07nMZuGJinhj4mgUOVqIWNDkjLo28wbTAdBgNVHQ4EFgQU3kBlk2TSlU8M
CLOK+55uobZCZuIwHwYDVR0jBBgwFoAU3kBlk2TSlU8MCLOK+55uobZCZuIwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIgKMUl7ePqMBa4MXVNJmoU4qIWzxuGcRLTExIbQSbfbRYCIQCY
zinIyPYGgY7GLpaecdXGEqF/R5x4DJGOQAo18BaNJg==
-----END CERTIFICATE-----
"""

    static let privateKeyPEM = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg2mCyHjnsJHyQjj84
G5GyvD3BeWZxSgF7b9t8gzKMXIOhRANCAASphgs2eJBcZcwHAEFA2gi+JPdYTiQX
j+v20dS7st0eH7BiDhDQcaXYBOynl/07nMZuGJinhj4mgUOVqIWNDkjL
-----END PRIVATE KEY-----
"""

    static func certificate() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
    }

    static func privateKey() throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
    }
}
#endif
