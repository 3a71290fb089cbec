import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChainSimulator } from '@chainpay/chain-sim'
import { type SimulatorNode, startSimulatorNode, testNetworks } from '@chainpay/chain-sim/testing'
import { associatedTokenAccount, walletFromMnemonic } from '@chainpay/wallet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliRun, runCli } from './testing/run-cli.js'

// the published vectors of the BIP39 test mnemonic (Ian Coleman's tool, the Ledger TRON app's tests, Phantom)
const wallet = walletFromMnemonic(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
)
const TRON_ADDRESS_0 = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH'
const TRON_ADDRESS_1 = 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK'
const SOLANA_ADDRESS_0 = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk'
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'

/** where a test writes a wallet file */
let directory: string
let node: SimulatorNode
let simulator: ChainSimulator
let base: string

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'chainpay-cli-chain-'))
  // blocks only when mined below: the head stays where the tests read it
  node = await startSimulatorNode({ networks: testNetworks('TRON', 'SOLANA') })
  ;({ simulator, url: base } = node)
  await simulator.mineBlocks('TRON', 24)
  await simulator.mineBlocks('SOLANA', 40)
})

afterAll(async () => {
  await node.close()
  rmSync(directory, { recursive: true, force: true })
})

function cli(argv: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return runCli(argv, env)
}

/** the value printed after `label:` */
function field(run: CliRun, label: string): string | undefined {
  const line = run.out.find((candidate) => candidate.trimStart().startsWith(`${label}:`))
  return line?.slice(line.indexOf(':') + 1).trim()
}

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

describe('chain check on TRON', () => {
  it('prints the head block, the solidified block and the address of the account xpub', async () => {
    const run = await cli([
      'chain',
      'check',
      '--network',
      'TRON',
      '--rpc-url',
      `${base}/chains/TRON`,
      '--xpub',
      wallet.tronAccountXpub,
    ])
    expect(run.err).toEqual([])
    expect(run.code).toBe(0)
    const head = await simulator.head('TRON')
    expect(field(run, 'Network')).toBe('TRON (TRON mainnet)')
    expect(field(run, 'Endpoint')).toBe(`${base}, API key none`)
    expect(field(run, 'Head block')).toBe(String(head.height))
    expect(field(run, 'hash')).toBe(head.hash)
    expect(field(run, 'time')).toMatch(
      new RegExp(`^${head.time.replace(/[.]/g, '\\.')} \\([0-9]+\\.[0-9] s (behind|ahead of) the clock\\)$`),
    )
    // the simulator solidifies 18 blocks below the head, as TRON does
    expect(field(run, 'Finalized block')).toBe(`${head.height - 18} (18 behind the head)`)
    expect(field(run, 'Required confirmations')).toBe('20')
    expect(field(run, 'Address 0')).toBe(`${TRON_ADDRESS_0} (m/44'/195'/0'/0/0)`)
  })

  it('derives the address of another index, with the key and confirmations payment-command is given', async () => {
    const run = await cli(['chain', 'check', '--network', 'tron', '--index', '1'], {
      TRON_RPC_URL: `${base}/chains/TRON`,
      TRON_ACCOUNT_XPUB: wallet.tronAccountXpub,
      TRON_REQUIRED_CONFIRMATIONS: '25',
    })
    expect(run.code, run.err.join('\n')).toBe(0)
    expect(field(run, 'Address 1')).toBe(`${TRON_ADDRESS_1} (m/44'/195'/0'/0/1)`)
    expect(field(run, 'Required confirmations')).toBe('25')
  })

  it('reads the key from a wallet file, and answers in JSON', async () => {
    const walletFile = join(directory, 'dev-wallet.json')
    writeFileSync(walletFile, JSON.stringify(wallet))
    const run = await cli(
      ['chain', 'check', '--json', '--network', 'TRON', '--rpc-url', `${base}/chains/TRON`],
      {
        WALLET_FILE: walletFile,
      },
    )
    expect(run.code, run.err.join('\n')).toBe(0)
    const report = JSON.parse(run.out.join('\n'))
    const head = await simulator.head('TRON')
    expect(report).toMatchObject({
      network: 'TRON',
      chain: 'TRON',
      testnet: false,
      endpoint: base,
      genesis: null,
      head: { height: head.height, hash: head.hash, time: head.time },
      finalizedHeight: head.height - 18,
      requiredConfirmations: 20,
      address: { index: 0, address: TRON_ADDRESS_0, derivationPath: "m/44'/195'/0'/0/0", tokenAccounts: [] },
    })
    expect(typeof report.head.behindClockMs).toBe('number')
  })

  it('says when the URL is a Solana node', async () => {
    const run = await cli(['chain', 'check', '--network', 'TRON', '--rpc-url', `${base}/chains/SOLANA`])
    expect(run).toEqual({
      code: 1,
      out: [],
      err: [`error: ${base} answers as a Solana node, not as a TRON one: TRON needs a TRON URL`],
    })
  })

  it('says when nothing answers', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`
    const run = await cli(['chain', 'check', '--network', 'TRON', '--rpc-url', url])
    expect(run.code).toBe(1)
    expect(run.err).toHaveLength(1)
    expect(run.err[0]).toMatch(new RegExp(`^error: cannot reach a working node at ${url}: .*ECONNREFUSED`))
  })

  it("checks each endpoint the services' variables name, and fails naming the one that does not answer", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`
    const run = await cli(['chain', 'check', '--network', 'TRON'], {
      TRON_RPC_URL: `${base}/chains/TRON,${url}`,
      TRON_RPC_API_KEY: ',key-of-the-second',
    })
    expect(run.code).toBe(1)
    expect(field(run, 'Endpoint')).toBe(`${base}, API key none`)
    expect(run.err).toHaveLength(1)
    expect(run.err[0]).toMatch(
      new RegExp(`^error: endpoint 2: cannot reach a working node at ${url}: .*ECONNREFUSED`),
    )
    expect(run.err.join('\n')).not.toContain('key-of-the-second')

    const json = await cli(['chain', 'check', '--network', 'TRON', '--json'], {
      TRON_RPC_URL: `${base}/chains/TRON, ${base}/chains/TRON`,
    })
    expect(json.code, json.err.join('\n')).toBe(0)
    expect(JSON.parse(json.out.join('\n'))).toEqual([
      expect.objectContaining({ network: 'TRON', endpoint: base }),
      expect.objectContaining({ network: 'TRON', endpoint: base }),
    ])
  })

  it('refuses a private key before connecting, without repeating it', async () => {
    const privateKey =
      'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi'
    const url = `http://127.0.0.1:${await closedPort()}`
    const run = await cli(['chain', 'check', '--network', 'TRON', '--rpc-url', url], {
      TRON_ACCOUNT_XPUB: privateKey,
    })
    expect(run).toEqual({
      code: 1,
      out: [],
      err: [
        'error: TRON_ACCOUNT_XPUB: the TRON account key must be an extended public key (xpub), not a private one',
      ],
    })
  })
})

describe('chain check on Solana', () => {
  it('prints the head slot, the finalized slot, the address of the seed and its token accounts', async () => {
    const run = await cli(['chain', 'check', '--network', 'SOLANA', '--rpc-url', `${base}/chains/SOLANA`], {
      SOLANA_SEED: wallet.solanaSeed,
    })
    expect(run.err).toEqual([])
    expect(run.code).toBe(0)
    const head = await simulator.head('SOLANA')
    expect(field(run, 'Network')).toBe('SOLANA (Solana mainnet)')
    expect(field(run, 'Endpoint')).toBe(base)
    expect(field(run, 'Genesis')).toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d (Solana mainnet-beta)')
    expect(field(run, 'Head block')).toBe(String(head.height))
    expect(field(run, 'hash')).toBe(head.hash)
    // the simulator finalizes 31 slots below the head
    expect(field(run, 'Finalized block')).toBe(`${head.height - 31} (31 behind the head)`)
    expect(field(run, 'Required confirmations')).toBe('32')
    expect(field(run, 'SOL floor')).toBe("890880 lamports (the node's rent-exempt minimum: 890880)")
    expect(field(run, 'Address 0')).toBe(`${SOLANA_ADDRESS_0} (m/44'/501'/0'/0')`)
    expect(field(run, 'USDC token account')).toBe(
      `${associatedTokenAccount(SOLANA_ADDRESS_0, USDC_MINT)} (mint ${USDC_MINT})`,
    )
    expect(field(run, 'USDT token account')).toBe(
      `${associatedTokenAccount(SOLANA_ADDRESS_0, USDT_MINT)} (mint ${USDT_MINT})`,
    )
  })

  it('says that a mainnet endpoint is not devnet', async () => {
    const run = await cli([
      'chain',
      'check',
      '--network',
      'SOLANA_DEVNET',
      '--rpc-url',
      `${base}/chains/SOLANA`,
    ])
    expect(run).toEqual({
      code: 1,
      out: [],
      err: [`error: ${base} serves Solana mainnet-beta (SOLANA), not SOLANA_DEVNET: check the URL`],
    })
  })

  it('says when the URL is a TRON node', async () => {
    const run = await cli(['chain', 'check', '--network', 'SOLANA', '--rpc-url', `${base}/chains/TRON`])
    expect(run).toEqual({
      code: 1,
      out: [],
      err: [`error: ${base} answers as a TRON node, not as a Solana one: SOLANA needs a Solana URL`],
    })
  })

  it('prints the head without an address when no key material is given', async () => {
    const run = await cli(['chain', 'check', '--network', 'SOLANA', '--rpc-url', `${base}/chains/SOLANA`])
    expect(run.code, run.err.join('\n')).toBe(0)
    expect(field(run, 'Address')).toBe('no key material given (SOLANA_SEED or WALLET_FILE (or --seed))')
  })
})

describe('chain check options', () => {
  it('wants a known network and its URL', async () => {
    expect((await cli(['chain', 'check'])).err).toEqual([
      'error: chain check: --network is required (TRON, TRON_NILE, SOLANA, SOLANA_DEVNET)',
    ])
    expect((await cli(['chain', 'check', '--network', 'ETHEREUM'])).err).toEqual([
      "error: --network: unknown network 'ETHEREUM'; known: TRON, TRON_NILE, SOLANA, SOLANA_DEVNET",
    ])
    expect((await cli(['chain', 'check', '--network', 'TRON_NILE'])).err).toEqual([
      'error: chain check: --rpc-url is required (or set TRON_NILE_RPC_URL)',
    ])
    expect(
      (await cli(['chain', 'check', '--network', 'TRON', '--rpc-url', 'wss://example.net'])).err,
    ).toEqual(['error: --rpc-url: expected an http or https URL, got a wss: URL'])
  })

  it('keeps the options of one chain off the other', async () => {
    const solana = ['chain', 'check', '--network', 'SOLANA', '--rpc-url', `${base}/chains/SOLANA`]
    expect((await cli([...solana, '--api-key', 'k'])).err).toEqual([
      'error: --solidity-url and --api-key are for TRON networks',
    ])
    expect((await cli([...solana, '--xpub', wallet.tronAccountXpub])).err).toEqual([
      'error: --xpub is for TRON networks',
    ])
    expect(
      (await cli(['merchants', 'list', '--network', 'TRON'], { CHAINPAY_ADMIN_TOKEN: 't' })).err,
    ).toEqual(['error: --network is only for chain check and the balance commands'])
  })
})
