// A local HTTP server that answers as the public price APIs document their answers (CoinGecko's
// /api/v3/simple/price, Kraken's /0/public/Ticker, Coinbase's /v2/exchange-rates; docs/operations.md,
// "Exchange rates"), so that
// the rate sources are tested against real HTTP: prices set by the test, and the faults real APIs
// have (no answer, an error status, a body that is not the documented shape, a price gone stale).

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { defaultCoinGeckoIds } from '../coingecko-source.js'

/** normal: the documented shape; hang: never answers; error: 500; garbage: 200 with another shape; not_json: 200 with HTML */
export type PriceApiBehaviour = 'normal' | 'hang' | 'error' | 'garbage' | 'not_json'

export interface PriceApiServer {
  /** http://127.0.0.1:port */
  url: string
  /** the price of one `base` in `quote`, written exactly as given (a JSON number for CoinGecko, a string for Kraken) */
  setPrice(base: string, quote: string, value: string, options?: { updatedAt?: Date }): void
  behave(behaviour: PriceApiBehaviour): void
  /** requests answered or held so far */
  readonly requests: number
  close(): Promise<void>
}

export async function startPriceApiServer(options: { now?: () => Date } = {}): Promise<PriceApiServer> {
  const now = options.now ?? (() => new Date())
  const prices = new Map<string, { value: string; updatedAt: Date | undefined }>()
  let behaviour: PriceApiBehaviour = 'normal'
  let requests = 0
  const idToCurrency = new Map(Object.entries(defaultCoinGeckoIds).map(([currency, id]) => [id, currency]))

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests++
    if (behaviour === 'hang') return
    if (behaviour === 'error') return send(response, 500, '{"status":{"error_code":500}}')
    if (behaviour === 'not_json') return send(response, 200, '<html>rate limited</html>', 'text/html')
    const url = new URL(request.url ?? '/', 'http://localhost')
    if (url.pathname === '/api/v3/simple/price') return coinGecko(url, response)
    if (url.pathname === '/0/public/Ticker') return kraken(url, response)
    if (url.pathname === '/v2/exchange-rates') return coinbase(url, response)
    send(response, 404, '{"error":"not found"}')
  })

  function coinGecko(url: URL, response: ServerResponse): void {
    const ids = (url.searchParams.get('ids') ?? '').split(',')
    const vsCurrencies = (url.searchParams.get('vs_currencies') ?? '').split(',')
    if (behaviour === 'garbage') {
      send(
        response,
        200,
        JSON.stringify({ [ids[0] ?? 'x']: { [vsCurrencies[0] ?? 'usd']: { value: 'soon' } } }),
      )
      return
    }
    const parts: string[] = []
    for (const id of ids) {
      const currency = idToCurrency.get(id)
      const fields: string[] = []
      let updatedAt: Date | undefined
      for (const vs of vsCurrencies) {
        const price = currency === undefined ? undefined : prices.get(`${currency}/${vs.toUpperCase()}`)
        if (price === undefined) continue
        fields.push(`${JSON.stringify(vs)}:${price.value}`)
        updatedAt = price.updatedAt ?? now()
      }
      if (fields.length === 0) continue
      if (url.searchParams.get('include_last_updated_at') === 'true' && updatedAt !== undefined) {
        fields.push(`"last_updated_at":${Math.floor(updatedAt.getTime() / 1000)}`)
      }
      parts.push(`${JSON.stringify(id)}:{${fields.join(',')}}`)
    }
    send(response, 200, `{${parts.join(',')}}`)
  }

  function kraken(url: URL, response: ServerResponse): void {
    const pair = url.searchParams.get('pair') ?? ''
    if (behaviour === 'garbage') {
      send(response, 200, JSON.stringify({ error: [], result: { [pair]: { c: 'n/a' } } }))
      return
    }
    const price = [...prices.entries()].find(([key]) => key.replace('/', '') === pair)?.[1]
    if (price === undefined) {
      send(response, 200, JSON.stringify({ error: ['EQuery:Unknown asset pair'] }))
      return
    }
    // Kraken names some pairs its own way in the result (USDTUSD answers as USDTZUSD)
    const key = pair === 'USDTUSD' ? 'USDTZUSD' : pair
    const ticker = {
      a: [price.value, '1', '1.000'],
      b: [price.value, '1', '1.000'],
      c: [price.value, '0.50000000'],
      v: ['100.0', '200.0'],
      p: [price.value, price.value],
      t: [10, 20],
      l: [price.value, price.value],
      h: [price.value, price.value],
      o: price.value,
    }
    send(response, 200, JSON.stringify({ error: [], result: { [key]: ticker } }))
  }

  function coinbase(url: URL, response: ServerResponse): void {
    const currency = url.searchParams.get('currency') ?? 'USD'
    if (behaviour === 'garbage') {
      send(response, 200, JSON.stringify({ data: { currency, rates: [] } }))
      return
    }
    const rates = Object.fromEntries(
      [...prices.entries()]
        .filter(([key]) => key.startsWith(`${currency}/`))
        .map(([key, price]) => [key.slice(currency.length + 1), price.value]),
    )
    if (Object.keys(rates).length === 0) {
      send(
        response,
        400,
        JSON.stringify({ errors: [{ id: 'invalid_request', message: 'Invalid currency' }] }),
      )
      return
    }
    send(response, 200, JSON.stringify({ data: { currency, rates } }))
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    setPrice(base, quote, value, setOptions = {}) {
      prices.set(`${base}/${quote}`, { value, updatedAt: setOptions.updatedAt })
    },
    behave(next) {
      behaviour = next
    },
    get requests() {
      return requests
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function send(response: ServerResponse, status: number, body: string, type = 'application/json'): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) })
  response.end(body)
}
