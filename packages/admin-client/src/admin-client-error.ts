// How a call to the admin API failed, as the client's callers tell their operator (chainpay-admin
// and chainpay-wallet word it each in their own way): the API could not be reached, it refused the
// request (4xx: its error code and message), or it failed (5xx or an answer that is not JSON).

export type AdminFailureKind = 'unreachable' | 'refused' | 'failed'

export interface AdminFailure {
  kind: AdminFailureKind
  /** the admin API's address as given to the client */
  url: string
  method: string
  /** relative to /admin/v1, query string included */
  path: string
  /** HTTP status; null when unreachable */
  status: number | null
  /** the API's error code ({"error":{"code"}}, docs/api.md "Errors"); null when it gave none */
  code: string | null
  /** the API's error message; null when it gave none */
  message: string | null
  /** the answer's text, for an answer without the API's error body; '' when none */
  text: string
  /** unreachable: the connection's error code (ECONNREFUSED...) or, without one, its message */
  cause: string | null
}

export class AdminClientError extends Error {
  readonly failure: AdminFailure

  constructor(failure: AdminFailure) {
    super(describeAdminFailure(failure))
    this.name = 'AdminClientError'
    this.failure = failure
  }
}

/** one line for people: what the API said, or why it could not be asked */
export function describeAdminFailure(failure: AdminFailure): string {
  if (failure.kind === 'unreachable') return `cannot reach the admin API at ${failure.url}: ${failure.cause}`
  if (failure.message !== null) return `${failure.message} (${failure.code}, HTTP ${failure.status})`
  return `the admin API answered HTTP ${failure.status}${failure.text === '' ? '' : `: ${failure.text.slice(0, 200)}`}`
}
