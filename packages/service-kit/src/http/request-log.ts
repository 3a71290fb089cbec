import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import { pathOf } from './errors.js'

/** requests whose line a sampled log writes instead (./sampled-log.ts): answers past a rate limit */
const sampledElsewhere = new WeakSet<FastifyRequest>()

/**
 * `request` gets no line of its own when it completes: whoever calls this logs it sampled and counts
 * it, so that a caller cannot make the log grow one line per request it sends past a limit
 */
export function logSampledInstead(request: FastifyRequest): void {
  sampledElsewhere.add(request)
}

/**
 * One info line per request, when it completes: method, path without the query (which may carry
 * merchant data), status, duration and, through the request's logger, its id. Headers and bodies are
 * never logged, so neither signatures nor secrets can end up in a log line; nor can a secret in the
 * path (the customer's checkout token): `loggedPath` censors it (http-app.ts).
 */
export class RequestLogController extends LogController {
  constructor(private readonly loggedPath: (path: string) => string = (path) => path) {
    super({ requestIdLogLabel: 'requestId' })
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: this.loggedPath(pathOf(request.raw.url ?? '')),
      statusCode: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime),
    }
    if (error) reply.log.error({ ...line, err: error }, 'request failed while sending the response')
    else if (!sampledElsewhere.has(request)) reply.log.info(line, 'request completed')
  }

  // Errors are logged once, by the gateway's error handler, with what the caller must not see.
  override defaultErrorLog(): void {}

  override routeNotFound(): void {}
}
