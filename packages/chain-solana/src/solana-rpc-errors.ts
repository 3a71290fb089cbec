// What a failed call to a Solana node means for the caller: try again (and when), or not. Every
// failure leaves as a ChainRpcError, and no message carries the endpoint's URL, whose path or
// query holds the provider's API key.
import { ChainRpcError, type ChainRpcFailure, isChainRpcError } from '@chainpay/ports'
import { endpointOrigin } from '@chainpay/rpc-failover'

export { endpointOrigin }

/**
 * getBlock's answers for a slot whose block this node does not have: "skipped, or missing due to
 * ledger jump to recent snapshot" (-32007) and "skipped, or missing in long-term storage" (-32009).
 * Neither says the slot was skipped: only the chain of parent slots does (docs/chains.md, "When a
 * node lacks a block").
 */
const MISSING_BLOCK_CODES = new Set([-32007, -32009])
/**
 * a node that is behind or unwell: block not available (yet), node unhealthy, block status not
 * available yet, internal error; and a block it lacks: unknown, to ask again later or elsewhere
 */
const UNAVAILABLE_CODES = new Set([-32004, -32005, -32014, -32603, ...MISSING_BLOCK_CODES])
/** minimum context slot not reached: the node would answer as of an older slot than asked */
const BEHIND_CODES = new Set([-32016])
/** providers that answer a quota with HTTP 200 and a JSON-RPC error */
export const RATE_LIMITED_CODES = new Set([429, -32429])

/** the JSON-RPC error code web3.js kept from the node's answer, if the failure was one */
export function jsonRpcCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined
  return typeof error.code === 'number' ? error.code : undefined
}

/** whether getBlock failed because this node does not have the block (which says nothing of the chain) */
export function isMissingBlock(error: unknown): boolean {
  const code = jsonRpcCodeOf(error)
  return code !== undefined && MISSING_BLOCK_CODES.has(code)
}

/**
 * `error` as a ChainRpcError whose message starts with `context` and names nothing secret. Only the
 * error's own text is redacted: the context is ours (the network and the endpoint's origin), and a
 * network's name may also be a path segment of its URL (the simulator's /SOLANA_DEVNET/), which the
 * redactor takes for a key.
 */
export function toChainRpcError(
  error: unknown,
  context: string,
  redactError: (text: string) => string,
): ChainRpcError {
  const redact = (text: string) => {
    const prefix = `${context}: `
    return text.startsWith(prefix) ? prefix + redactError(text.slice(prefix.length)) : redactError(text)
  }
  if (isChainRpcError(error)) {
    return new ChainRpcError(error.failure, redact(`${context}: ${error.message}`), {
      retryAfterMs: error.retryAfterMs,
      cause: error,
    })
  }
  const message = error instanceof Error ? error.message : String(error)
  const code = jsonRpcCodeOf(error)
  if (code === undefined) {
    // web3.js rejects an answer that is not JSON or not the documented shape
    return new ChainRpcError('bad-response', redact(`${context}: unreadable answer: ${message}`), {
      cause: error,
    })
  }
  let failure: ChainRpcFailure = 'bad-response'
  if (RATE_LIMITED_CODES.has(code)) failure = 'rate-limited'
  else if (UNAVAILABLE_CODES.has(code)) failure = 'unavailable'
  else if (BEHIND_CODES.has(code)) failure = 'behind'
  return new ChainRpcError(failure, redact(`${context}: node error ${code}: ${message}`), { cause: error })
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now */
export function retryAfterMs(header: string | null, now: () => number = Date.now): number | undefined {
  if (header === null) return undefined
  const text = header.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now())
}

/**
 * A function that removes the parts of the RPC URLs that may be secret (the whole URL, credentials,
 * query values, longer path segments) from a text.
 */
export function redactorFor(rpcUrls: string | readonly string[]): (text: string) => string {
  const secrets = new Set<string>()
  for (const rpcUrl of typeof rpcUrls === 'string' ? [rpcUrls] : rpcUrls) {
    secrets.add(rpcUrl)
    try {
      const url = new URL(rpcUrl)
      for (const part of [url.username, url.password, ...url.searchParams.values()]) secrets.add(part)
      for (const segment of url.pathname.split('/')) if (segment.length >= 8) secrets.add(segment)
    } catch {
      // not a URL: only the whole text is known to be secret
    }
  }
  const ordered = [...secrets].filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length)
  return (text) => ordered.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text)
}

/**
 * How messages name a network's endpoints (`SOLANA at https://host`; with several, the failover's
 * message names each one), and the redactor of all their URLs
 */
export function whereAndRedactor(
  network: string,
  rpcUrls: readonly string[],
): { where: string; redact: (text: string) => string } {
  const [only] = rpcUrls
  const where = rpcUrls.length === 1 && only !== undefined ? `${network} at ${endpointOrigin(only)}` : network
  return { where, redact: redactorFor(rpcUrls) }
}
