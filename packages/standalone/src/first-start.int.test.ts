import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createManualClock, createRootLogger } from '@chainpay/platform'
import { afterEach, describe, expect, it } from 'vitest'
import { readStandaloneConfig } from './config.js'
import { dataFiles } from './first-start.js'
import { buildStandaloneContext } from './standalone.js'
import { newDataDir } from './testing/standalone-process.js'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** builds standalone on `dataDir` without starting it, and returns what it logged at warn */
async function buildOnce(dataDir: string): Promise<string[]> {
  const lines: string[] = []
  const logger = createRootLogger({
    service: 'standalone-test',
    level: 'warn',
    destination: { write: (line: string) => void lines.push(line) },
  })
  const standalone = await buildStandaloneContext(readStandaloneConfig({ DATA_DIR: dataDir }), logger, {
    clock: createManualClock('2030-01-15T12:00:00.000Z'),
  })
  await standalone.close()
  return lines.map((line) => JSON.parse(line).msg as string)
}

describe('the development wallet', () => {
  it('is created on the first start, which says so, and kept on the next', async () => {
    const dataDir = newDataDir()
    directories.push(dataDir)
    const walletFile = join(dataDir, dataFiles.wallet)

    const first = await buildOnce(dataDir)
    expect(first).toContainEqual(expect.stringMatching(/^created a development wallet/))
    const wallet = readFileSync(walletFile, 'utf8')
    expect(JSON.parse(wallet)).toMatchObject({
      mnemonic: expect.any(String),
      tronAccountXpub: expect.stringMatching(/^xpub/),
    })

    const second = await buildOnce(dataDir)
    expect(second).not.toContainEqual(expect.stringMatching(/development wallet/))
    expect(readFileSync(walletFile, 'utf8')).toBe(wallet)
  })
})
