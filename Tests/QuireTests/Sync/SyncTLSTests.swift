import Foundation
import Testing

/// `quire server --tls-cert --tls-key` serves HTTPS itself; a device signs in with
/// `--ca-file` to trust a self-signed server, and syncs over it.
@Suite("Quire Sync over HTTPS")
struct SyncTLSTests {
  @Test("a server with its own certificate syncs two devices that trust it, and refuses the rest")
  func selfSignedServer() async throws {
    let keys = try TemporaryDirectory()
    let (certificate, key) = try Self.selfSigned(in: keys)
    let server = try await SyncServerProcess.started(arguments: [
      "--tls-cert", certificate, "--tls-key", key,
    ])
    #expect(server.url.scheme == "https")

    let a = try SyncDevice("A", server: server, login: ["--ca-file", certificate])
    let b = try SyncDevice("B", server: server, login: ["--ca-file", certificate])
    try a.start()
    try b.start()
    try a.write("over TLS", to: "Secret.txt")
    #expect(await eventually { b.text("Secret.txt") == "over TLS" })

    let stranger = try TemporaryDirectory()
    let refused = try Executables.run(
      "quire", ["sync", "login", server.url.absoluteString, "--user", "alice"],
      environment: ["XDG_CONFIG_HOME": stranger.url.path], input: "alice-password\n")
    #expect(refused.status != 0, "a device that does not trust the certificate must not sign in")
    #expect(
      refused.stderr.contains("has a certificate this device does not trust"), "\(refused.stderr)")
    let plain = try Executables.runCommand(
      URL(fileURLWithPath: "/usr/bin/curl"),
      [
        "-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}",
        "http://127.0.0.1:\(server.url.port!)/v1/health",
      ])
    #expect(plain.stdout != "200", "plain HTTP is not served on the HTTPS port")
  }

  @Test("the server speaks TLS 1.2 and later only")
  func oldProtocolsRefused() throws {
    let keys = try TemporaryDirectory()
    let (certificate, key) = try Self.selfSigned(in: keys)
    let server = try SyncServerProcess(arguments: ["--tls-cert", certificate, "--tls-key", key])
    func handshake(_ version: String) throws -> Executables.Output {
      // SECLEVEL=0 lets this client offer the old protocols at all; the server must refuse.
      try Executables.runCommand(
        URL(fileURLWithPath: "/usr/bin/openssl"),
        [
          "s_client", "-connect", "127.0.0.1:\(server.url.port!)", version, "-cipher",
          "DEFAULT@SECLEVEL=0",
        ], input: "")
    }
    for old in ["-tls1", "-tls1_1"] {
      let answer = try handshake(old)
      #expect(answer.status != 0, "\(old) was accepted: \(answer.stdout)")
      // Refused by the server (its alert), not by this machine's OpenSSL before it asked.
      #expect(
        (answer.stdout + answer.stderr).contains("alert protocol version"),
        "\(old): \(answer.stderr)")
    }
    let current = try handshake("-tls1_2")
    #expect(current.status == 0, "TLS 1.2 was refused: \(current.stderr)")
    #expect(current.stdout.contains("Protocol  : TLSv1.2") || current.stdout.contains("TLSv1.2"))
  }

  /// A self-signed certificate for 127.0.0.1 and its key, as PEM files in `keys`.
  static func selfSigned(in keys: TemporaryDirectory) throws -> (certificate: String, key: String) {
    let certificate = keys.url.appendingPathComponent("cert.pem").path
    let key = keys.url.appendingPathComponent("key.pem").path
    let made = try Executables.runCommand(
      URL(fileURLWithPath: "/usr/bin/openssl"),
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
        "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
      ])
    #expect(made.status == 0, "\(made.stderr)")
    return (certificate, key)
  }
}
