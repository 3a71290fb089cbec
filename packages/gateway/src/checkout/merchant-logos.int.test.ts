import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createManualClock, createRootLogger } from '@chainpay/platform'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMerchantLogos, MAX_LOGO_BYTES } from './merchant-logos.js'

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 1),
])
const logger = createRootLogger({ service: 'test', level: 'silent' })
let server: Server
let origin: string
const asked: string[] = []

beforeAll(async () => {
  // a merchant's web server: a real logo, and everything a logo must not be
  server = createServer((request, response) => {
    asked.push(request.url ?? '')
    const answers: Record<string, () => void> = {
      '/logo.png': () => response.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
      '/big.png': () =>
        response
          .writeHead(200, { 'content-type': 'image/png' })
          .end(Buffer.concat([PNG, Buffer.alloc(MAX_LOGO_BYTES)])),
      '/page.png': () =>
        response.writeHead(200, { 'content-type': 'image/png' }).end('<html>not a png</html>'),
      '/logo.svg': () => response.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg/>'),
      '/moved.png': () => response.writeHead(302, { location: '/logo.png' }).end(),
    }
    ;(answers[request.url ?? ''] ?? (() => response.writeHead(404).end()))()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => new Promise((resolve) => server.close(resolve)))

describe('createMerchantLogos', () => {
  it('fetches an image once and keeps it; a while later it fetches it again', async () => {
    const clock = createManualClock(new Date('2030-01-01T00:00:00Z'))
    const logos = createMerchantLogos({ allowPrivateHosts: true, clock, logger })
    const before = asked.length
    const url = `${origin}/logo.png`
    const [first, second] = await Promise.all([logos.logoAt(url), logos.logoAt(url)])
    expect(first).toEqual({ contentType: 'image/png', bytes: PNG })
    expect(second).toBe(first)
    expect(await logos.logoAt(url)).toBe(first)
    expect(asked.length - before).toBe(1)
    clock.advance(11 * 60_000)
    await logos.logoAt(url)
    expect(asked.length - before).toBe(2)
    await logos.close()
  })

  it('tells without waiting what it knows: nothing yet while fetching, then the logo or null', async () => {
    const clock = createManualClock(new Date('2030-01-01T00:00:00Z'))
    const logos = createMerchantLogos({ allowPrivateHosts: true, clock, logger })
    const before = asked.length
    expect(logos.knownLogoAt(`${origin}/logo.png`)).toBeUndefined()
    expect(logos.knownLogoAt(`${origin}/missing.png`)).toBeUndefined()
    expect(await logos.logoAt(`${origin}/logo.png`)).toEqual({ contentType: 'image/png', bytes: PNG })
    expect(await logos.logoAt(`${origin}/missing.png`)).toBeNull()
    expect(logos.knownLogoAt(`${origin}/logo.png`)).toEqual({ contentType: 'image/png', bytes: PNG })
    expect(logos.knownLogoAt(`${origin}/missing.png`)).toBeNull()
    expect(asked.length - before).toBe(2)
    await logos.close()
  })

  it('refuses what is too large, not the image it says, SVG, a redirect or an error', async () => {
    const clock = createManualClock(new Date('2030-01-01T00:00:00Z'))
    const logos = createMerchantLogos({ allowPrivateHosts: true, clock, logger })
    for (const path of ['/big.png', '/page.png', '/logo.svg', '/moved.png', '/missing.png']) {
      expect(await logos.logoAt(`${origin}${path}`), path).toBeNull()
    }
    await logos.close()
  })

  it('under the production URL policy, reaches neither http nor a private address, whatever a name resolves to', async () => {
    const clock = createManualClock(new Date('2030-01-01T00:00:00Z'))
    const before = asked.length
    const logos = createMerchantLogos({
      allowPrivateHosts: false,
      clock,
      logger,
      resolveHost: async () => ['127.0.0.1'],
    })
    expect(await logos.logoAt(`${origin}/logo.png`)).toBeNull()
    expect(await logos.logoAt('https://logos.example.com/logo.png')).toBeNull()
    expect(asked.length).toBe(before)
    await logos.close()
  })
})
