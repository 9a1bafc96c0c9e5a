import Hummingbird

/// Runs every route on `executor` (see ``BlockingExecutor``), or where Hummingbird runs it when
/// that is nil.
struct ExecutorMiddleware<Context: RequestContext>: RouterMiddleware {
  let executor: (any TaskExecutor)?

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    try await withTaskExecutorPreference(executor) { try await next(request, context) }
  }
}
