import Foundation
import Quire
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Talks to a running Quire app with its token, for `quire open`.
struct AppClient {
  let record: AppRecord.Record

  /// Opens the document at `url` in place in the app; returns the editor's handle.
  func openInPlace(_ url: URL) throws -> String {
    guard let address = URL(string: record.url),
      let components = URLComponents(url: address, resolvingAgainstBaseURL: false),
      let token = components.queryItems?.first(where: { $0.name == "token" })?.value,
      let endpoint = URL(string: "api/documents/open-in-place", relativeTo: address)
    else { throw QuireError(.internalError, "The running app's record is damaged: \(record.url)") }
    var request = URLRequest(url: endpoint)
    request.httpMethod = "POST"
    request.setValue(token, forHTTPHeaderField: "X-Quire-Token")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = try JSONEncoder().encode(["path": url.path])
    let answer = Answer()
    let done = DispatchSemaphore(value: 0)
    URLSession.shared.dataTask(with: request) { data, response, error in
      answer.set(data, (response as? HTTPURLResponse)?.statusCode, error)
      done.signal()
    }.resume()
    guard done.wait(timeout: .now() + 60) == .success else {
      throw QuireError(.timedOut, "The Quire app at \(address.host ?? "") did not answer.")
    }
    let (data, status, error) = answer.get()
    guard let data, let status else {
      throw QuireError(
        .ioError, "Could not reach the Quire app at \(record.url).", cause: error)
    }
    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    guard status == 200, let handle = object?["handle"] as? String else {
      let message = (object?["error"] as? [String: Any])?["message"] as? String
      throw QuireError(.ioError, message ?? "The Quire app refused to open \(url.path).")
    }
    return handle
  }

  /// The reply, handed from URLSession's queue to the waiting thread.
  private final class Answer: Sendable {
    private let value = Mutex<(Data?, Int?, (any Error)?)>((nil, nil, nil))
    func set(_ data: Data?, _ status: Int?, _ error: (any Error)?) {
      value.withLock { $0 = (data, status, error) }
    }
    func get() -> (Data?, Int?, (any Error)?) { value.withLock { $0 } }
  }
}
