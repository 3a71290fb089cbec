// The SDK as a shop gets it: packed into a tarball, installed with plain npm into an empty project
// outside the workspace, type-checked there with nothing but its own types, and run as a shop's
// integration against standalone (testing/fixtures/sdk-shop/shop.ts).

import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../../', import.meta.url))
const shopSource = fileURLToPath(new URL('./testing/fixtures/sdk-shop/shop.ts', import.meta.url))

let standalone: InProcessStandalone
let shop: string

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: { now: () => new Date() } })
  shop = mkdtempSync(join(tmpdir(), 'chainpay-shop-'))
})

afterAll(async () => {
  await standalone?.stop()
  if (shop) rmSync(shop, { recursive: true, force: true })
})

describe('@chainpay/sdk from its tarball', () => {
  it('installs with npm outside the workspace, type-checks, and runs a shop against standalone', async () => {
    // scripts/pack-sdk, as docs/sdk.md says, with no pnpm on PATH (it takes the one in .tools/): pnpm
    // pack, as a release would, whose prepack builds dist/, `files` saying what ships
    const withoutPnpm = (process.env.PATH ?? '')
      .split(':')
      .filter((dir) => !/pnpm/.test(dir))
      .join(':')
    const { stdout: packed } = await run(join(root, 'scripts/pack-sdk'), [shop], {
      cwd: tmpdir(),
      env: { ...process.env, PATH: withoutPnpm },
    })
    const tarball = readdirSync(shop).find((file) => /^chainpay-sdk-.*\.tgz$/.test(file)) ?? ''
    expect(tarball).not.toBe('')
    expect(packed.trim()).toBe(join(shop, tarball))

    writeFileSync(join(shop, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }))
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${tarball}`], { cwd: shop })
    const installed = join(shop, 'node_modules/@chainpay/sdk')
    const manifest = readFileSync(join(installed, 'package.json'), 'utf8')
    expect(manifest).not.toContain('workspace:')
    expect(JSON.parse(manifest).dependencies ?? {}).toEqual({})
    expect(readdirSync(installed)).toContain('README.md')
    const shipped = readdirSync(join(installed, 'dist'))
    expect(shipped).toContain('index.d.ts')
    expect(shipped.filter((file) => file.includes('.test.'))).toEqual([])

    // the shop's code against the installed types only: no @types/node, no workspace paths
    copyFileSync(shopSource, join(shop, 'shop.ts'))
    writeFileSync(join(shop, 'types.d.ts'), NODE_GLOBALS_FOR_THE_SHOP)
    const tsc = join(root, 'node_modules/typescript/bin/tsc')
    writeFileSync(
      join(shop, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom'],
          types: [],
        },
        files: ['shop.ts', 'types.d.ts'],
      }),
    )
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: shop }).catch(
      (error: { stdout?: string }) => {
        throw new Error(
          `the shop does not type-check against the packed SDK:\n${error.stdout ?? String(error)}`,
        )
      },
    )

    const merchant = standalone.demoMerchant()
    const { stdout } = await run(process.execPath, ['shop.ts'], {
      cwd: shop,
      env: {
        PATH: process.env.PATH ?? '',
        CHAINPAY_URL: standalone.baseUrl,
        CHAINPAY_API_KEY: merchant.apiKey,
        CHAINPAY_API_SECRET: merchant.apiSecret,
        CHAINPAY_WEBHOOK_SECRET: merchant.webhookSecret,
      },
    })
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')
    expect(result).toMatchObject({
      status: 'confirmed',
      receivedAmount: '19.99',
      notFound: '404 PAYMENT_NOT_FOUND',
      lateFunds: [],
    })
    expect(result.events).toEqual(expect.arrayContaining(['payment.pending', 'payment.confirmed']))
  })
})

// What the shop uses of Node beyond the web platform's globals, declared the way a project without
// @types/node would: enough for the fixture to type-check against the SDK's own declarations.
const NODE_GLOBALS_FOR_THE_SHOP = `
declare const process: {
  env: Record<string, string | undefined>
  stdout: { write(text: string): boolean }
}
declare class Buffer extends Uint8Array { static concat(chunks: Uint8Array[]): Buffer }
declare module 'node:http' {
  interface IncomingMessage extends AsyncIterable<unknown> { headers: Record<string, string | string[] | undefined> }
  interface ServerResponse { writeHead(status: number): { end(body?: string): void } }
  interface Server {
    listen(port: number, host: string, callback: () => void): void
    address(): { port: number } | string | null
    close(): void
  }
  export function createServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Server
}
`
