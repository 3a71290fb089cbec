import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createManualClock, createRootLogger } from '@chainpay/platform'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
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

describe('the data directory and its files', () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777
  let savedUmask: number
  beforeEach(() => {
    savedUmask = process.umask()
  })
  afterEach(() => {
    process.umask(savedUmask)
  })

  it('are the owner’s alone, whatever the umask: DATA_DIR 0700, every file in it 0600', async () => {
    // a permissive umask (containers, some CI runners): nothing is left to it
    process.umask(0o000)
    const parent = newDataDir()
    directories.push(parent)
    const dataDir = join(parent, 'data')
    await buildOnce(dataDir)
    // the -wal and -shm files exist while the database is open (a clean close removes them)
    const walFiles = [`${dataFiles.database}-wal`, `${dataFiles.database}-shm`]
    const files = [
      dataFiles.secrets,
      dataFiles.wallet,
      dataFiles.demoMerchant,
      dataFiles.database,
      ...walFiles.filter((name) => existsSync(join(dataDir, name))),
    ]
    expect(modeOf(dataDir)).toBe(0o700)
    expect(Object.fromEntries(files.map((name) => [name, modeOf(join(dataDir, name))]))).toEqual(
      Object.fromEntries(files.map((name) => [name, 0o600])),
    )
  })

  it('tightens a DATA_DIR of its own that others can read, and the files an earlier version left open, saying so', async () => {
    const dataDir = newDataDir()
    directories.push(dataDir)
    await buildOnce(dataDir)
    chmodSync(dataDir, 0o755)
    for (const name of [dataFiles.secrets, dataFiles.wallet, dataFiles.demoMerchant, dataFiles.database]) {
      chmodSync(join(dataDir, name), 0o644)
    }
    const warnings = await buildOnce(dataDir)
    expect(warnings).toContainEqual(
      'DATA_DIR was open to other users; it holds secrets, so it is now the owner’s alone',
    )
    expect(modeOf(dataDir)).toBe(0o700)
    for (const name of [dataFiles.secrets, dataFiles.wallet, dataFiles.demoMerchant, dataFiles.database]) {
      expect(modeOf(join(dataDir, name)), name).toBe(0o600)
    }
    expect(await buildOnce(dataDir)).not.toContainEqual(expect.stringMatching(/^DATA_DIR/))
  })

  it('refuses a DATA_DIR that is a file', async () => {
    const parent = newDataDir()
    directories.push(parent)
    const dataDir = join(parent, 'data')
    writeFileSync(dataDir, '')
    await expect(buildOnce(dataDir)).rejects.toThrow(`${dataDir}: expected a directory`)
  })
})
