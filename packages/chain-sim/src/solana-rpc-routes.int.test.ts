import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { base58 } from '@scure/base'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { simulatedAddress } from './chain-format.js'
import type { ChainSimulator } from './simulator.js'
import { type SimulatorNode, startSimulatorNode, testNetworks } from './testing/simulator-node.js'

const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string
const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'

// biome-ignore lint/suspicious/noExplicitAny: node answers are read loosely and checked with expect
type Loose = any

let node: SimulatorNode
let simulator: ChainSimulator

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('TRON', 'SOLANA') })
  simulator = node.simulator
})

afterEach(() => node.close())

async function post(payload: unknown, network = 'SOLANA') {
  const response = await node.app.inject({
    method: 'POST',
    url: `/chains/${network}`,
    headers: { 'content-type': 'application/json' },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  })
  return { status: response.statusCode, body: response.json() as Loose }
}

async function rpc(method: string, ...params: unknown[]): Promise<Loose> {
  const { status, body } = await post({ jsonrpc: '2.0', id: 'call-1', method, params })
  expect(status).toBe(200)
  expect(body).toMatchObject({ jsonrpc: '2.0', id: 'call-1' })
  return body
}

async function result(method: string, ...params: unknown[]): Promise<Loose> {
  const body = await rpc(method, ...params)
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
  return body.result
}

const full = { commitment: 'confirmed', maxSupportedTransactionVersion: 0, rewards: false }

/** a block of three transactions: a legacy SOL payment, a v0 USDC payment, a failed legacy one */
async function paymentsBlock() {
  const solReceiver = simulatedAddress('SOLANA')
  const usdcReceiver = simulatedAddress('SOLANA')
  const sol = await simulator.submitTransfer('SOLANA', { to: solReceiver, amount: '1.25', currency: 'SOL' })
  const usdc = await simulator.submitTransfer('SOLANA', {
    to: usdcReceiver,
    amount: '42.5',
    currency: 'USDC',
  })
  const failed = await simulator.submitTransfer('SOLANA', {
    to: solReceiver,
    amount: '9',
    currency: 'SOL',
    fail: true,
  })
  const { height } = await simulator.mineBlocks('SOLANA', 1)
  return { height, sol, usdc, failed, solReceiver, usdcReceiver }
}

function deltas(meta: Loose): number[] {
  return meta.postBalances.map((post: number, index: number) => post - meta.preBalances[index])
}

describe('POST /chains/:network getBlock', () => {
  it('renders jsonParsed transactions: annotated keys, lookup table keys, parsed transfers, exact deltas', async () => {
    const { height, sol, usdc, failed, solReceiver, usdcReceiver } = await paymentsBlock()
    const block = await result('getBlock', height, { ...full, encoding: 'jsonParsed' })
    const [head] = await simulator.blockDetails('SOLANA', height, height)

    expect(block).toMatchObject({
      blockhash: head?.hash,
      previousBlockhash: head?.parentHash,
      parentSlot: height - 1,
      blockHeight: height,
      blockTime: Math.floor(Date.parse(head?.time as string) / 1000),
    })
    expect(block).not.toHaveProperty('rewards')
    expect(block.transactions.map((tx: Loose) => [tx.transaction.signatures[0], tx.version])).toEqual([
      [sol.txHash, 'legacy'],
      [usdc.txHash, 0],
      [failed.txHash, 'legacy'],
    ])

    const [solTx, usdcTx, failedTx] = block.transactions
    const payer = solTx.transaction.message.accountKeys[0]
    expect(payer).toMatchObject({ signer: true, writable: true, source: 'transaction' })
    expect(solTx.transaction.message.instructions).toEqual([
      {
        program: 'system',
        programId: SYSTEM_PROGRAM,
        parsed: {
          type: 'transfer',
          info: { source: payer.pubkey, destination: solReceiver, lamports: 1_250_000_000 },
        },
        stackHeight: null,
      },
    ])
    expect(deltas(solTx.meta)).toEqual([-1_250_005_000, 1_250_000_000, 0])
    expect(solTx.meta).toMatchObject({ err: null, fee: 5000, status: { Ok: null } })
    expect(solTx.meta).not.toHaveProperty('loadedAddresses')

    const keys = usdcTx.transaction.message.accountKeys
    const receiverIndex = keys.findIndex((key: Loose) => key.pubkey === usdcReceiver)
    expect(keys[receiverIndex]).toEqual({
      pubkey: usdcReceiver,
      signer: false,
      writable: true,
      source: 'lookupTable',
    })
    expect(usdcTx.transaction.message.addressTableLookups).toEqual([
      { accountKey: expect.any(String), readonlyIndexes: [], writableIndexes: [0] },
    ])
    const [instruction] = usdcTx.transaction.message.instructions
    expect(instruction).toMatchObject({
      program: 'spl-token',
      programId: TOKEN_PROGRAM,
      parsed: {
        type: 'transferChecked',
        info: {
          destination: usdcReceiver,
          mint: USDC,
          authority: keys[0]?.pubkey,
          tokenAmount: { amount: '42500000', decimals: 6, uiAmount: 42.5, uiAmountString: '42.5' },
        },
      },
    })
    const source = instruction.parsed.info.source
    const tokenDelta = (index: number) =>
      BigInt(
        usdcTx.meta.postTokenBalances.find((entry: Loose) => entry.accountIndex === index).uiTokenAmount
          .amount,
      ) -
      BigInt(
        usdcTx.meta.preTokenBalances.find((entry: Loose) => entry.accountIndex === index).uiTokenAmount
          .amount,
      )
    expect(tokenDelta(receiverIndex)).toBe(42_500_000n)
    expect(tokenDelta(keys.findIndex((key: Loose) => key.pubkey === source))).toBe(-42_500_000n)
    expect(
      usdcTx.meta.postTokenBalances.every(
        (entry: Loose) => entry.mint === USDC && entry.programId === TOKEN_PROGRAM,
      ),
    ).toBe(true)
    expect(deltas(usdcTx.meta)[0]).toBe(-5000)

    expect(failedTx.meta).toMatchObject({
      err: { InstructionError: [0, { Custom: 1 }] },
      status: { Err: { InstructionError: [0, { Custom: 1 }] } },
      fee: 5000,
    })
    expect(deltas(failedTx.meta)).toEqual([-5000, 0, 0])
    expect(failedTx.meta.logMessages.at(-1)).toBe(
      `Program ${SYSTEM_PROGRAM} failed: custom program error: 0x1`,
    )
  })

  it('renders json transactions: static keys, loaded addresses, compiled instructions', async () => {
    const { height, usdc, usdcReceiver } = await paymentsBlock()
    const block = await result('getBlock', height, full)
    const usdcTx = block.transactions.find((tx: Loose) => tx.transaction.signatures[0] === usdc.txHash)
    const { message } = usdcTx.transaction

    expect(message.accountKeys.every((key: unknown) => typeof key === 'string')).toBe(true)
    expect(message.accountKeys).not.toContain(usdcReceiver)
    expect(usdcTx.meta.loadedAddresses).toEqual({ writable: [usdcReceiver], readonly: [] })
    expect(message.header).toEqual({
      numRequiredSignatures: 1,
      numReadonlySignedAccounts: 0,
      numReadonlyUnsignedAccounts: 2,
    })
    const keys = [...message.accountKeys, usdcReceiver]
    const [instruction] = message.instructions
    expect(keys[instruction.programIdIndex]).toBe(TOKEN_PROGRAM)
    // transferChecked: source, mint, destination, authority
    expect(instruction.accounts.map((index: number) => keys[index])).toEqual([
      expect.any(String),
      USDC,
      usdcReceiver,
      message.accountKeys[0],
    ])
    const data = base58.decode(instruction.data)
    expect(data[0]).toBe(12)
    expect(new DataView(data.buffer, data.byteOffset).getBigUint64(1, true)).toBe(42_500_000n)
    expect(data[9]).toBe(6)
    expect(usdcTx.meta.postBalances).toHaveLength(keys.length)
  })

  it('renders the same block the same way every time', async () => {
    const { height } = await paymentsBlock()
    expect(await result('getBlock', height, full)).toEqual(await result('getBlock', height, full))
  })

  it('answers the lighter transaction details and rewards as a node does', async () => {
    const { height, sol, usdc, failed } = await paymentsBlock()
    const signatures = await result('getBlock', height, { ...full, transactionDetails: 'signatures' })
    expect(signatures.signatures).toEqual([sol.txHash, usdc.txHash, failed.txHash])
    expect(signatures).not.toHaveProperty('transactions')

    const none = await result('getBlock', height, { ...full, transactionDetails: 'none', rewards: true })
    expect(none).not.toHaveProperty('transactions')
    expect(none.rewards).toEqual([])

    const accounts = await result('getBlock', height, { ...full, transactionDetails: 'accounts' })
    const [first] = accounts.transactions
    expect(Object.keys(first.transaction).sort()).toEqual(['accountKeys', 'signatures'])
    expect(first.transaction.accountKeys[0]).toMatchObject({ signer: true, source: 'transaction' })
    expect(Object.keys(first.meta).sort()).toEqual([
      'err',
      'fee',
      'postBalances',
      'postTokenBalances',
      'preBalances',
      'preTokenBalances',
      'status',
    ])
  })

  it('answers with the node errors for slots it cannot serve', async () => {
    const { height } = await simulator.mineBlocks('SOLANA', 3)
    const errorOf = async (...params: unknown[]) => (await rpc('getBlock', ...params)).error

    expect(await errorOf(height + 1, full)).toEqual({
      code: -32004,
      message: `Block not available for slot ${height + 1}`,
    })
    // a node's default commitment is finalized, and nothing is final yet
    expect(await errorOf(height, { maxSupportedTransactionVersion: 0 })).toEqual({
      code: -32004,
      message: `Block not available for slot ${height}`,
    })
    expect(await errorOf(0, full)).toEqual({
      code: -32007,
      message: 'Slot 0 was skipped, or missing due to ledger jump to recent snapshot',
    })
    expect(await errorOf(height, { ...full, commitment: 'processed' })).toMatchObject({ code: -32602 })
    expect(await errorOf(height, { ...full, encoding: 'base64' })).toMatchObject({ code: -32602 })
    expect(await errorOf(-1, full)).toMatchObject({ code: -32602 })
  })

  it('answers the first available block, the rent-exempt minimum, and nothing below a snapshot', async () => {
    const { height } = await simulator.mineBlocks('SOLANA', 10)
    expect((await rpc('getFirstAvailableBlock')).result).toBe(1)
    expect((await rpc('getMinimumBalanceForRentExemption', 0)).result).toBe(890_880)
    expect((await rpc('getMinimumBalanceForRentExemption', 165)).result).toBe(2_039_280)
    expect((await rpc('getMinimumBalanceForRentExemption', -1)).error).toMatchObject({ code: -32602 })

    simulator.forgetHistoryBelow('SOLANA', 5)
    expect((await rpc('getFirstAvailableBlock')).result).toBe(5)
    expect((await rpc('minimumLedgerSlot')).result).toBe(5)
    expect((await rpc('getBlocks', 1, height, { commitment: 'confirmed' })).result).toEqual(
      Array.from({ length: height - 4 }, (_, index) => index + 5),
    )
    expect((await rpc('getBlock', 4, full)).error).toEqual({
      code: -32007,
      message: 'Slot 4 was skipped, or missing due to ledger jump to recent snapshot',
    })
  })

  it('answers getSignatureStatuses as a node: slot, commitment, err; null for what it does not know', async () => {
    const paid = await simulator.submitTransfer('SOLANA', {
      to: simulatedAddress('SOLANA'),
      amount: '1',
      currency: 'SOL',
    })
    const failed = await simulator.submitTransfer('SOLANA', {
      to: simulatedAddress('SOLANA'),
      amount: '1',
      currency: 'SOL',
      fail: true,
    })
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    const statuses = async () =>
      (
        await rpc('getSignatureStatuses', [paid.txHash, failed.txHash, 'unknown'], {
          searchTransactionHistory: true,
        })
      ).result
    expect(await statuses()).toEqual({
      context: { apiVersion: expect.any(String), slot: height },
      value: [
        { slot: height, confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' },
        {
          slot: height,
          confirmations: 0,
          err: { InstructionError: [0, { Custom: 1 }] },
          status: { Err: { InstructionError: [0, { Custom: 1 }] } },
          confirmationStatus: 'confirmed',
        },
        null,
      ],
    })
    await simulator.mineBlocks('SOLANA', 40)
    expect((await statuses()).value[0]).toMatchObject({
      confirmations: null,
      confirmationStatus: 'finalized',
    })
    expect((await rpc('getSignatureStatuses', Array(257).fill(paid.txHash))).error).toMatchObject({
      code: -32602,
    })
  })

  it('forgets a transaction a fork took back, and fails it where a fork includes it again failed', async () => {
    const { txHash } = await simulator.submitTransfer('SOLANA', {
      to: simulatedAddress('SOLANA'),
      amount: '1',
      currency: 'SOL',
    })
    await simulator.mineBlocks('SOLANA', 1)
    expect(await simulator.dropTransaction('SOLANA', txHash, { requeue: true, fail: true })).toBe(true)
    const status = async () =>
      (await rpc('getSignatureStatuses', [txHash], { searchTransactionHistory: true })).result.value[0]
    expect(await status()).toBeNull()
    expect((await rpc('getTransaction', txHash, { maxSupportedTransactionVersion: 0 })).result).toBeNull()
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    expect(await status()).toMatchObject({ slot: height, err: { InstructionError: [0, { Custom: 1 }] } })
  })

  it('plays a node that lacks blocks the chain holds: -32009 for getBlock, left out of getBlocks', async () => {
    const { height } = await simulator.mineBlocks('SOLANA', 4)
    simulator.lackBlocks('SOLANA', [height - 1])
    expect((await rpc('getBlock', height - 1, full)).error).toEqual({
      code: -32009,
      message: `Slot ${height - 1} was skipped, or missing in long-term storage`,
    })
    expect((await rpc('getBlocks', height - 2, height, { commitment: 'confirmed' })).result).toEqual([
      height - 2,
      height,
    ])
    expect((await rpc('getBlocksWithLimit', height - 2, 3, { commitment: 'confirmed' })).result).toEqual([
      height - 2,
      height,
    ])
    // the next block still names it as its parent: the chain holds it
    expect((await rpc('getBlock', height, full)).result).toMatchObject({ parentSlot: height - 1 })

    simulator.lackBlocks('SOLANA', [])
    expect((await rpc('getBlock', height - 1, full)).result).toMatchObject({ parentSlot: height - 2 })
  })

  it('refuses a v0 transaction to a client that did not say it supports it', async () => {
    await simulator.submitTransfer('SOLANA', { to: simulatedAddress('SOLANA'), amount: '1', currency: 'SOL' })
    const { height: legacyOnly } = await simulator.mineBlocks('SOLANA', 1)
    const legacy = await result('getBlock', legacyOnly, { commitment: 'confirmed' })
    expect(legacy.transactions[0]).not.toHaveProperty('version')

    await paymentsBlock()
    const { height } = await simulator.head('SOLANA')
    expect((await rpc('getBlock', height, { commitment: 'confirmed' })).error).toMatchObject({
      code: -32015,
      message: expect.stringContaining('"maxSupportedTransactionVersion": 0'),
    })
  })
})

describe('POST /chains/:network slots and blocks', () => {
  it('answers getSlot, getBlockHeight and getBlocks per commitment', async () => {
    const { height } = await simulator.mineBlocks('SOLANA', 40)
    const finalized = height - 31
    expect(await result('getSlot', { commitment: 'confirmed' })).toBe(height)
    expect(await result('getSlot', { commitment: 'processed' })).toBe(height)
    expect(await result('getSlot')).toBe(finalized)
    expect(await result('getBlockHeight', { commitment: 'finalized' })).toBe(finalized)

    expect(await result('getBlocks', height - 2, height + 5, { commitment: 'confirmed' })).toEqual([
      height - 2,
      height - 1,
      height,
    ])
    expect(await result('getBlocks', finalized - 1, height)).toEqual([finalized - 1, finalized])
    expect(await result('getBlocks', finalized - 1, { commitment: 'finalized' })).toEqual([
      finalized - 1,
      finalized,
    ])
    expect(await result('getBlocks', height + 1, height + 3, { commitment: 'confirmed' })).toEqual([])
    expect(await result('getBlocksWithLimit', height - 1, 5, { commitment: 'confirmed' })).toEqual([
      height - 1,
      height,
    ])
    expect((await rpc('getBlocks', 1, 600_000, { commitment: 'confirmed' })).error).toBeUndefined()
    expect((await rpc('getBlocks', 0, 500_001 + height, { commitment: 'confirmed' })).error).toBeUndefined()
    const behind = {
      code: -32016,
      message: 'Minimum context slot has not been reached',
      data: { contextSlot: height },
    }
    const ahead = { commitment: 'confirmed', minContextSlot: height + 1 }
    const key = simulatedAddress('SOLANA')
    expect((await rpc('getSlot', ahead)).error).toEqual(behind)
    // what a watcher lists and checks with: a node behind says so rather than answer with less
    expect((await rpc('getSignaturesForAddress', key, ahead)).error).toEqual(behind)
    expect((await rpc('getMultipleAccounts', [key], ahead)).error).toEqual(behind)
    expect((await rpc('getSignaturesForAddress', key, { ...ahead, minContextSlot: height })).result).toEqual(
      [],
    )
  })

  it('answers getLatestBlockhash, getVersion, getHealth and getGenesisHash', async () => {
    const head = await simulator.mineBlocks('SOLANA', 2)
    expect(await result('getLatestBlockhash', { commitment: 'confirmed' })).toEqual({
      context: { apiVersion: expect.any(String), slot: head.height },
      value: { blockhash: head.hash, lastValidBlockHeight: head.height + 150 },
    })
    expect(await result('getVersion')).toEqual({
      'solana-core': expect.any(String),
      'feature-set': expect.any(Number),
    })
    expect(await result('getHealth')).toBe('ok')
    expect(await result('getGenesisHash')).toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d')
  })
})

describe('POST /chains/:network as JSON-RPC 2.0', () => {
  it('answers a batch in order', async () => {
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    const { body } = await post([
      { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'confirmed' }] },
      { jsonrpc: '2.0', id: 2, method: 'getNothing' },
      { jsonrpc: '2.0', id: 3, method: 'getHealth' },
    ])
    expect(body).toEqual([
      { jsonrpc: '2.0', id: 1, result: height },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 3, result: 'ok' },
    ])
  })

  it('answers a body that is not JSON, or not a request, with the JSON-RPC errors', async () => {
    expect((await post('{"jsonrpc": "2.0", "method": ')).body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    })
    expect((await post({ id: 7, method: 'getSlot' })).body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid request' },
      id: 7,
    })
    expect((await post([])).body).toMatchObject({ error: { code: -32600 } })
  })

  it('writes lamports as exact integers, beyond what a double holds', async () => {
    const to = simulatedAddress('SOLANA')
    // 9,007,199.254740993 SOL: one lamport above 2^53
    await simulator.submitTransfer('SOLANA', { to, amount: '9007199.254740993', currency: 'SOL' })
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    const response = await node.app.inject({
      method: 'POST',
      url: '/chains/SOLANA',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getBlock',
        params: [height, { ...full, encoding: 'jsonParsed' }],
      }),
    })
    expect(response.body).toContain('"lamports":9007199254740993')
    // read the balances as text: JSON.parse would round them
    const balances = (name: string) =>
      (new RegExp(`"${name}":\\[([\\d,]+)\\]`).exec(response.body)?.[1] ?? '').split(',').map(BigInt)
    const [before, after] = [balances('preBalances'), balances('postBalances')]
    expect((after[1] as bigint) - (before[1] as bigint)).toBe(9_007_199_254_740_993n)
    expect((before[0] as bigint) - (after[0] as bigint)).toBe(9_007_199_254_745_993n)
  })

  it('answers 404 for a network that is not a simulated Solana one', async () => {
    for (const network of ['TRON', 'SOLANA_DEVNET', 'ETHEREUM']) {
      const { status, body } = await post({ jsonrpc: '2.0', id: 1, method: 'getSlot' }, network)
      expect(status).toBe(404)
      expect(body).toMatchObject({ error: { code: 'NOT_FOUND' } })
    }
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'getHealth' }, 'solana')).status).toBe(200)
  })
})
