// Merchants' logos for the customer's page, fetched by the gateway and served from its own origin
// (the page asks nothing of another origin: docs/api.md, "The customer's page"). A logo URL is
// fetched under the webhooks' rules: https to a public address unless the URL policy is development,
// the address checked being the one connected to (service-kit's publicAddressLookup); no redirect;
// at most MAX_LOGO_BYTES of PNG, JPEG, GIF or WebP, its first bytes matching its type (no SVG, which
// can carry script). What was fetched, or that nothing usable was, is kept for a while.

import { callbackUrlProblem } from '@chainpay/domain'
import type { Clock, Logger } from '@chainpay/platform'
import { publicAddressLookup, type ResolveHost, resolveHostWithDns } from '@chainpay/service-kit'
import { Agent, request } from 'undici'

export interface MerchantLogo {
  contentType: string
  bytes: Buffer
}

export interface MerchantLogos {
  /** the image at `url`, or null when it cannot be had or is not an accepted image */
  logoAt(url: string): Promise<MerchantLogo | null>
  /**
   * What is known now of the image at `url`, without waiting: the logo, null when it cannot be had,
   * undefined while it is being fetched (a fetch is started if none is under way)
   */
  knownLogoAt(url: string): MerchantLogo | null | undefined
  close(): Promise<void>
}

export const MAX_LOGO_BYTES = 256 * 1024
const TIMEOUT_MS = 5_000
/** a logo fetched is kept this long; a failure a minute, so that a page view does not refetch it */
const KEEP_MS = 10 * 60_000
const KEEP_FAILURE_MS = 60_000
const MAX_KEPT = 500

/** the accepted types and how their files begin */
const SIGNATURES: Record<string, (bytes: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
}

export interface MerchantLogosOptions {
  /** development URL policy: http and private addresses too (local shops in tests) */
  allowPrivateHosts: boolean
  clock: Clock
  logger: Logger
  resolveHost?: ResolveHost
}

export function createMerchantLogos(options: MerchantLogosOptions): MerchantLogos {
  const { allowPrivateHosts, clock, logger } = options
  const agent = new Agent({
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    connect: allowPrivateHosts
      ? { timeout: TIMEOUT_MS }
      : {
          timeout: TIMEOUT_MS,
          lookup: publicAddressLookup(options.resolveHost ?? resolveHostWithDns, 'logo'),
        },
  })
  /** `settled` is the logo once fetched (null: none usable), undefined while fetching */
  const kept = new Map<
    string,
    { logo: Promise<MerchantLogo | null>; settled: MerchantLogo | null | undefined; until: number }
  >()

  async function fetchLogo(url: string): Promise<MerchantLogo | null> {
    const problem = callbackUrlProblem(url, { allowInsecure: allowPrivateHosts })
    if (problem !== null) throw new Error(`logo ${problem}`)
    const response = await request(url, {
      method: 'GET',
      dispatcher: agent,
      headers: { accept: Object.keys(SIGNATURES).join(', ') },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
    const contentType =
      String(response.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim()
        .toLowerCase() ?? ''
    const matches = SIGNATURES[contentType]
    if (response.statusCode !== 200 || matches === undefined) {
      await response.body.dump({ limit: 0 }).catch(() => undefined)
      throw new Error(`logo answered HTTP ${response.statusCode} with '${contentType}'`)
    }
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length
      if (size > MAX_LOGO_BYTES) {
        response.body.destroy()
        throw new Error(`logo larger than ${MAX_LOGO_BYTES} bytes`)
      }
      chunks.push(chunk as Buffer)
    }
    const bytes = Buffer.concat(chunks)
    if (!matches(bytes)) throw new Error(`logo is not the ${contentType} it says it is`)
    return { contentType, bytes }
  }

  function keptLogoAt(url: string) {
    const now = clock.now().getTime()
    const known = kept.get(url)
    if (known !== undefined && known.until > now) return known
    if (kept.size >= MAX_KEPT) kept.clear()
    const entry = {
      logo: fetchLogo(url).then(
        (logo) => {
          entry.settled = logo
          return logo
        },
        (error: unknown) => {
          logger.warn({ err: error, url }, 'merchant logo not shown')
          const logo = Promise.resolve(null)
          kept.set(url, { logo, settled: null, until: clock.now().getTime() + KEEP_FAILURE_MS })
          return logo
        },
      ),
      settled: undefined as MerchantLogo | null | undefined,
      until: now + KEEP_MS,
    }
    kept.set(url, entry)
    return entry
  }

  return {
    logoAt: (url) => keptLogoAt(url).logo,
    knownLogoAt: (url) => keptLogoAt(url).settled,
    close: () => agent.close(),
  }
}
