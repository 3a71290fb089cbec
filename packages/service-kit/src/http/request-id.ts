import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

export const REQUEST_ID_HEADER = 'x-request-id'

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** a caller's X-Request-Id when it is short and plain enough to echo and log; else null */
export function saneRequestId(value: string | string[] | undefined): string | null {
  return typeof value === 'string' && SANE_REQUEST_ID.test(value) ? value : null
}

/** fastify's genReqId: the caller's X-Request-Id when sane, else a random UUID */
export function requestIdFor(request: IncomingMessage): string {
  return saneRequestId(request.headers[REQUEST_ID_HEADER]) ?? randomUUID()
}
