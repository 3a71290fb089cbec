import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { PublicKey } from '@solana/web3.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { simulatedAddress, simulatedWalletAddress } from './chain-format.js'
import type { ChainSimulator } from './simulator.js'
import { type SimulatorNode, startSimulatorNode, testNetworks } from './testing/simulator-node.js'

const COUNTERFEIT_USDT = 'THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ'
const DEVNET_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
const TOKEN_ACCOUNT_RENT = '2039280'

/** the owner's associated token account, as a wallet derives it (@solana/spl-token) */
const associatedOf = (owner: string, mint: string) =>
  getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner)).toBase58()

let node: SimulatorNode
let simulator: ChainSimulator
let app: SimulatorNode['app']

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('TRON', 'SOLANA_DEVNET') })
  ;({ simulator, app } = node)
})

afterEach(() => node.close())

function submit(network: string, payload: unknown) {
  return app.inject({ method: 'POST', url: `/dev/chains/${network}/transfers`, payload: payload as object })
}

async function transferOf(network: string, txHash: string) {
  const head = await simulator.head(network)
  const blocks = await simulator.client(network).getBlocks(1, head.height)
  return blocks.flatMap((block) => block.transfers).find((transfer) => transfer.txHash === txHash)
}

describe('who may call the simulator (docs/operations.md, "The chain simulator\'s routes")', () => {
  const TOKEN = 'simulator-token-for-tests-0123456789abcdef'
  const transfer = () => ({ to: simulatedAddress('TRON'), amount: '5', currency: 'USDT' })

  /** the transfers the next block carries: a refused request must have left none */
  async function transfersMined(on: ChainSimulator) {
    const head = await on.mineBlocks('TRON', 1)
    const [block] = await on.blockDetails('TRON', head.height, head.height)
    return block?.transactions.length
  }

  it('refuses callers that are not on this machine when no token is set, on every route', async () => {
    const stranger = { remoteAddress: '203.0.113.9' }
    const refused = [
      await app.inject({
        method: 'POST',
        url: '/dev/chains/TRON/transfers',
        payload: transfer(),
        ...stranger,
      }),
      await app.inject({ method: 'POST', url: '/dev/chains/TRON/blocks', ...stranger }),
      await app.inject({ method: 'GET', url: '/dev/chains/TRON/head', ...stranger }),
      await app.inject({ method: 'POST', url: '/chains/TRON/wallet/getnowblock', ...stranger }),
      await app.inject({
        method: 'POST',
        url: '/chains/SOLANA_DEVNET',
        payload: { jsonrpc: '2.0', id: 1, method: 'getSlot' },
        ...stranger,
      }),
      // a private address is not this machine either
      await app.inject({ method: 'GET', url: '/dev/chains/TRON/head', remoteAddress: '10.0.0.7' }),
    ]
    for (const response of refused) {
      expect(response.statusCode).toBe(404)
      expect(response.json().error.code).toBe('NOT_FOUND')
    }
    expect(await transfersMined(simulator)).toBe(0)
  })

  it('answers loopback callers, IPv4, IPv6 and IPv4-mapped, when no token is set', async () => {
    for (const remoteAddress of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      const response = await app.inject({
        method: 'POST',
        url: '/dev/chains/TRON/transfers',
        payload: transfer(),
        remoteAddress,
      })
      expect(response.statusCode, remoteAddress).toBe(201)
    }
  })

  // a reverse proxy on this machine (nginx in front of standalone, an Istio sidecar) connects from
  // loopback for callers anywhere
  it('refuses a loopback connection that says it was forwarded, when no token is set', async () => {
    const forwardings = [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9' },
      { 'x-real-ip': '203.0.113.9' },
      { via: '1.1 proxy' },
      { 'x-envoy-external-address': '203.0.113.9' },
    ]
    for (const headers of forwardings) {
      const response = await app.inject({
        method: 'POST',
        url: '/dev/chains/TRON/transfers',
        payload: transfer(),
        headers,
        remoteAddress: '127.0.0.1',
      })
      expect(response.statusCode, JSON.stringify(headers)).toBe(404)
    }
    expect(await transfersMined(simulator)).toBe(0)
  })

  it('with a token, wants it from every caller, loopback included, and then answers any address', async () => {
    const guarded = await startSimulatorNode({ networks: testNetworks('TRON'), token: TOKEN })
    try {
      const post = (headers: Record<string, string>, remoteAddress = '127.0.0.1') =>
        guarded.app.inject({
          method: 'POST',
          url: '/dev/chains/TRON/transfers',
          payload: transfer(),
          headers,
          remoteAddress,
        })
      const missing = await post({})
      expect(missing.statusCode).toBe(401)
      expect(missing.json().error.code).toBe('MISSING_AUTH_HEADERS')
      for (const wrong of [`${TOKEN}x`, TOKEN.slice(1), TOKEN.toUpperCase()]) {
        const response = await post({ 'x-simulator-token': wrong })
        expect(response.statusCode).toBe(401)
        expect(response.json().error.code).toBe('INVALID_API_KEY')
      }
      const nodeRoute = await guarded.app.inject({ method: 'POST', url: '/chains/TRON/wallet/getnowblock' })
      expect(nodeRoute.statusCode).toBe(401)
      expect(await transfersMined(guarded.simulator)).toBe(0)

      expect((await post({ 'x-simulator-token': TOKEN }, '203.0.113.9')).statusCode).toBe(201)
      expect(await transfersMined(guarded.simulator)).toBe(1)
    } finally {
      await guarded.close()
    }
  })
})

describe('node-shaped endpoints served beside the dev routes', () => {
  it('answers java-tron and Solana JSON-RPC requests for the simulated networks', async () => {
    const head = await simulator.mineBlocks('TRON', 2)
    const tron = await app.inject({ method: 'POST', url: '/chains/TRON/wallet/getnowblock' })
    expect(tron.statusCode).toBe(200)
    expect(tron.json()).toMatchObject({
      blockID: head.hash,
      block_header: { raw_data: { number: head.height } },
    })

    const solanaHead = await simulator.head('SOLANA_DEVNET')
    const solana = await app.inject({
      method: 'POST',
      url: '/chains/SOLANA_DEVNET',
      payload: { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'confirmed' }] },
    })
    expect(solana.json()).toEqual({ jsonrpc: '2.0', id: 1, result: solanaHead.height })
  })
})

describe('POST /dev/chains/:network/transactions', () => {
  const post = (network: string, payload: object) =>
    app.inject({ method: 'POST', url: `/dev/chains/${network}/transactions`, payload })

  it('submits one transaction with several transfers, and a failure reason', async () => {
    const [first, second] = [simulatedAddress('TRON'), simulatedAddress('TRON')]
    const response = await post('tron', {
      transfers: [
        { to: first, amount: '1', currency: 'USDT' },
        { to: second, amount: '2', currency: 'USDT' },
      ],
      failure: 'OUT_OF_ENERGY',
    })
    expect(response.statusCode).toBe(201)
    const { txHash } = response.json()
    const head = await simulator.mineBlocks('TRON', 1)
    const [block] = await simulator.blockDetails('TRON', head.height, head.height)
    expect(block?.transactions).toMatchObject([
      { txHash, failure: 'OUT_OF_ENERGY', transfers: [{ to: first }, { to: second }] },
    ])
  })

  it('answers 400 VALIDATION_ERROR for what the chain cannot carry', async () => {
    const to = simulatedAddress('TRON')
    const bodies = [
      { transfers: [] },
      { transfers: [{ to, amount: '1', currency: 'USDT' }], failure: 'EXPLODED' },
      {
        transfers: [
          { to, amount: '1', currency: 'TRX' },
          { to, amount: '1', currency: 'USDT' },
        ],
      },
      { transfers: [{ to, amount: '1', currency: 'USDT' }], failure: 'INSTRUCTION_ERROR' },
    ]
    for (const body of bodies) {
      const response = await post('TRON', body)
      expect(response.statusCode).toBe(400)
      expect(response.json().error.code).toBe('VALIDATION_ERROR')
    }
  })
})

describe('POST /dev/chains/:network/transfers', () => {
  it('answers 201 with the txHash, matching the network ignoring case', async () => {
    const to = simulatedAddress('TRON')
    const response = await submit('tron', { to, amount: '12.5', currency: 'USDT' })
    expect(response.statusCode).toBe(201)
    const { txHash } = response.json()
    expect(txHash).toMatch(/^[0-9a-f]{64}$/)
    await simulator.mineBlocks('TRON', 1)
    expect(await transferOf('TRON', txHash)).toMatchObject({ to, amountUnits: '12500000', success: true })
  })

  it('submits counterfeit tokens and failing transfers', async () => {
    const counterfeit = (
      await submit('TRON', { to: 'TX', amount: '1', currency: 'USDT', contract: COUNTERFEIT_USDT })
    ).json()
    const failing = (
      await submit('Solana_Devnet', {
        to: associatedOf(simulatedWalletAddress('SOLANA'), DEVNET_USDC),
        amount: '0.5',
        currency: 'USDC',
        fail: true,
      })
    ).json()
    await simulator.mineBlocks('TRON', 1)
    await simulator.mineBlocks('SOLANA_DEVNET', 1)
    expect(await transferOf('TRON', counterfeit.txHash)).toMatchObject({
      asset: { kind: 'token', contract: COUNTERFEIT_USDT },
      success: true,
    })
    expect(await transferOf('SOLANA_DEVNET', failing.txHash)).toMatchObject({
      asset: { kind: 'token', contract: DEVNET_USDC },
      amountUnits: '500000',
      success: false,
    })
  })

  it('answers 400 VALIDATION_ERROR for a bad amount or body', async () => {
    const bodies = [
      { to: 'TX', amount: '1.0000001', currency: 'USDT' },
      { to: 'TX', amount: '-1', currency: 'TRX' },
      { to: 'TX', amount: 5, currency: 'TRX' },
      { to: 'TX', currency: 'TRX' },
      { to: '', amount: '1', currency: 'TRX' },
      { to: 'TX', amount: '1', currency: 'TRX', fail: 'yes' },
      { to: 'TX', amount: '1', currency: 'TRX', memo: 'unknown field' },
      // held ahead of a Solana signature: none on TRON
      { to: 'TX', amount: '1', currency: 'TRX', landsAheadOf: '5'.repeat(88) },
    ]
    for (const body of bodies) {
      const response = await submit('TRON', body)
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(response.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } })
    }
    expect((await simulator.client('TRON').getBlocks(1, 1))[0]?.transfers).toEqual([])
  })

  it('answers 400 UNSUPPORTED_ASSET for a currency the network does not have', async () => {
    const response = await submit('TRON', { to: 'TX', amount: '1', currency: 'USDC' })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({
      error: { code: 'UNSUPPORTED_ASSET', message: expect.stringContaining('USDC') },
    })
  })

  it('answers 404 NOT_FOUND for a network the simulator does not run', async () => {
    for (const network of ['SOLANA', 'BITCOIN']) {
      const response = await submit(network, { to: 'x', amount: '1', currency: 'SOL' })
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual({
        error: { code: 'NOT_FOUND', message: expect.stringContaining(network) },
      })
    }
  })
})

describe('an SPL transfer through the dev routes, as a wallet sends it', () => {
  const NETWORK = 'SOLANA_DEVNET'

  async function storedTransfersOf(txHash: string) {
    const head = await simulator.mineBlocks(NETWORK, 1)
    const [block] = await simulator.blockDetails(NETWORK, head.height, head.height)
    return block?.transactions.find((transaction) => transaction.txHash === txHash)?.transfers
  }

  it("lands in the owner's associated token account, opened by the first payment with the sender's rent", async () => {
    const owner = simulatedWalletAddress('SOLANA')
    const associated = associatedOf(owner, DEVNET_USDC)
    const first = await submit(NETWORK, { to: owner, amount: '12.5', currency: 'USDC' })
    expect(first.statusCode).toBe(201)
    expect(await storedTransfersOf(first.json().txHash)).toMatchObject([
      { to: associated, contract: null, amountUnits: TOKEN_ACCOUNT_RENT },
      { to: associated, contract: DEVNET_USDC, amountUnits: '12500000' },
    ])
    // the second payment finds the account open and opens nothing
    const second = await submit(NETWORK, { to: owner, amount: '0.5', currency: 'USDC' })
    expect(await storedTransfersOf(second.json().txHash)).toMatchObject([
      { to: associated, contract: DEVNET_USDC, amountUnits: '500000' },
    ])

    // read as the watcher reads it: tokens of the owner, no SOL for the rent
    expect(await transferOf(NETWORK, first.json().txHash)).toMatchObject({
      to: associated,
      owner,
      asset: { kind: 'token', contract: DEVNET_USDC },
      amountUnits: '12500000',
    })
    const head = await simulator.head(NETWORK)
    const transfers = (await simulator.client(NETWORK).getBlocks(1, head.height)).flatMap((b) => b.transfers)
    expect(transfers.filter((transfer) => transfer.asset.kind === 'native')).toEqual([])
    expect(await simulator.solanaAccount(NETWORK, associated)).toMatchObject({
      lamports: BigInt(TOKEN_ACCOUNT_RENT),
      token: { mint: DEVNET_USDC, owner, amount: 13_000_000n, decimals: 6 },
    })
    expect(await simulator.tokenAccountsOf(NETWORK, owner)).toEqual([
      { address: associated, owner, mint: DEVNET_USDC, decimals: 6 },
    ])
  })

  it('shows the node the opened account with no balance before it and the owner after it', async () => {
    const owner = simulatedWalletAddress('SOLANA')
    const associated = associatedOf(owner, DEVNET_USDC)
    const { txHash } = (await submit(NETWORK, { to: owner, amount: '3', currency: 'USDC' })).json()
    await simulator.mineBlocks(NETWORK, 1)
    const response = await app.inject({
      method: 'POST',
      url: `/chains/${NETWORK}`,
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'getTransaction',
        params: [
          txHash,
          { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 },
        ],
      },
    })
    const { meta, transaction } = response.json().result
    const index = transaction.message.accountKeys.findIndex(
      (key: { pubkey: string }) => key.pubkey === associated,
    )
    expect(index).toBeGreaterThan(0)
    expect(meta.preBalances[index]).toBe(0)
    expect(meta.postBalances[index]).toBe(Number(TOKEN_ACCOUNT_RENT))
    expect(meta.preTokenBalances.filter((b: { accountIndex: number }) => b.accountIndex === index)).toEqual(
      [],
    )
    expect(meta.postTokenBalances).toContainEqual(
      expect.objectContaining({ accountIndex: index, mint: DEVNET_USDC, owner }),
    )
  })

  it('keeps a token account it only saw paid once it is emptied: it holds 0, as a real one does until closed', async () => {
    const owner = simulatedWalletAddress('SOLANA')
    const associated = associatedOf(owner, DEVNET_USDC)
    await submit(NETWORK, { to: associated, amount: '2', currency: 'USDC' })
    const emptied = await submit(NETWORK, {
      from: associated,
      to: associatedOf(simulatedWalletAddress('SOLANA'), DEVNET_USDC),
      amount: '2',
      currency: 'USDC',
    })
    expect(emptied.statusCode).toBe(201)
    await simulator.mineBlocks(NETWORK, 1)
    expect(await simulator.solanaAccount(NETWORK, associated)).toMatchObject({
      lamports: BigInt(TOKEN_ACCOUNT_RENT),
      token: { mint: DEVNET_USDC, amount: 0n, decimals: 6 },
    })
    expect(await simulator.tokenAccountsOf(NETWORK, owner)).toEqual([
      { address: associated, owner, mint: DEVNET_USDC, decimals: 6 },
    ])
  })

  it('pays a token account of the mint directly, and opens nothing in a failed transaction', async () => {
    const owner = simulatedWalletAddress('SOLANA')
    const opened = await simulator.openTokenAccount(NETWORK, { owner, currency: 'USDC' })
    const direct = await submit(NETWORK, { to: opened.address, amount: '1', currency: 'USDC' })
    expect(await storedTransfersOf(direct.json().txHash)).toMatchObject([
      { to: opened.address, contract: DEVNET_USDC, amountUnits: '1000000' },
    ])
    const stranger = simulatedWalletAddress('SOLANA')
    const failed = await submit(NETWORK, { to: stranger, amount: '1', currency: 'USDC', fail: true })
    expect(await storedTransfersOf(failed.json().txHash)).toMatchObject([
      { to: associatedOf(stranger, DEVNET_USDC), contract: DEVNET_USDC },
    ])
    expect(await simulator.tokenAccountsOf(NETWORK, stranger)).toEqual([])
  })

  it('answers 400 VALIDATION_ERROR for what no wallet sends, and sends nothing', async () => {
    const owner = simulatedWalletAddress('SOLANA')
    // a token account of another mint: one that received a counterfeit USDC
    const otherMint = simulatedWalletAddress('SOLANA')
    const otherAccount = associatedOf(simulatedWalletAddress('SOLANA'), otherMint)
    await simulator.submitTransfer(NETWORK, {
      to: otherAccount,
      amount: '1',
      currency: 'USDC',
      contract: otherMint,
    })
    const refusals: Array<[object, string]> = [
      [{ to: otherAccount, amount: '1', currency: 'USDC' }, 'is a token account of mint'],
      [{ to: DEVNET_USDC, amount: '1', currency: 'USDC' }, 'is a token mint'],
      [
        { to: owner, amount: '1', currency: 'USDC', contract: 'no-such-mint' },
        'contract: no-such-mint is no Solana mint',
      ],
      [{ to: 'ata', amount: '1', currency: 'USDC' }, 'to: ata is no Solana address'],
      [{ to: 'ata', amount: '1', currency: 'SOL' }, 'to: ata is no Solana address'],
    ]
    for (const [body, message] of refusals) {
      const response = await submit(NETWORK, body)
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(response.json()).toEqual({
        error: { code: 'VALIDATION_ERROR', message: expect.stringContaining(message) },
      })
    }
    const inTransaction = await app.inject({
      method: 'POST',
      url: `/dev/chains/${NETWORK}/transactions`,
      payload: {
        transfers: [
          { to: owner, amount: '1', currency: 'USDC' },
          { to: otherAccount, amount: '1', currency: 'USDC' },
        ],
      },
    })
    expect(inTransaction.statusCode).toBe(400)
    expect(inTransaction.json().error.message).toMatch(/^transfers\[1\]\.to: /)
    const head = await simulator.mineBlocks(NETWORK, 1)
    const [block] = await simulator.blockDetails(NETWORK, head.height, head.height)
    // only the counterfeit that made the other mint's account
    expect(block?.transactions).toHaveLength(1)
    expect(await simulator.tokenAccountsOf(NETWORK, owner)).toEqual([])
  })
})

describe('POST /dev/chains/:network/blocks', () => {
  it('mines count blocks, or one without a body, and answers the head', async () => {
    const three = await app.inject({ method: 'POST', url: '/dev/chains/TRON/blocks', payload: { count: 3 } })
    expect(three.statusCode).toBe(200)
    expect(three.json()).toEqual(await simulator.head('TRON'))
    expect(three.json().height).toBe(4)
    const one = await app.inject({ method: 'POST', url: '/dev/chains/tron/blocks' })
    expect(one.statusCode).toBe(200)
    expect(one.json()).toMatchObject({ height: 5, hash: expect.stringMatching(/^0{15}5/) })
  })

  it('answers 400 for a count outside 1..1000 and 404 for an unknown network', async () => {
    for (const count of [0, 1001, 1.5, '2']) {
      const response = await app.inject({
        method: 'POST',
        url: '/dev/chains/TRON/blocks',
        payload: { count },
      })
      expect(response.statusCode).toBe(400)
      expect(response.json().error.code).toBe('VALIDATION_ERROR')
    }
    expect((await simulator.head('TRON')).height).toBe(1)
    const unknown = await app.inject({ method: 'POST', url: '/dev/chains/TRON_NILE/blocks', payload: {} })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().error.code).toBe('NOT_FOUND')
  })
})

describe('POST /dev/chains/:network/transactions/:txHash/drop', () => {
  it('drops a mined transaction, then answers 404 for it', async () => {
    const to = simulatedAddress('SOLANA')
    const { txHash } = (await submit('SOLANA_DEVNET', { to, amount: '1', currency: 'SOL' })).json()
    await simulator.mineBlocks('SOLANA_DEVNET', 2)
    const url = `/dev/chains/solana_devnet/transactions/${txHash}/drop`
    const dropped = await app.inject({ method: 'POST', url })
    expect(dropped.statusCode).toBe(200)
    expect(dropped.json()).toEqual({ dropped: true, requeued: false })
    expect(await transferOf('SOLANA_DEVNET', txHash)).toBeUndefined()
    const again = await app.inject({ method: 'POST', url })
    expect(again.statusCode).toBe(404)
    expect(again.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringContaining(txHash) } })
  })
})

describe('POST /dev/chains/:network/transactions/:txHash/drop with requeue', () => {
  it('pops a mined transaction and the next block includes it again', async () => {
    const { txHash } = (await submit('TRON', { to: 'Tpayee', amount: '1', currency: 'TRX' })).json()
    const first = (await simulator.mineBlocks('TRON', 1)).height
    const url = `/dev/chains/TRON/transactions/${txHash}/drop`
    const dropped = await app.inject({ method: 'POST', url, payload: { requeue: true } })
    expect(dropped.json()).toEqual({ dropped: true, requeued: true })
    expect(await simulator.transactionHeight('TRON', txHash)).toBeNull()
    const again = (await simulator.mineBlocks('TRON', 1)).height
    expect(await simulator.transactionHeight('TRON', txHash)).toBe(again)
    expect(again).toBe(first + 1)
  })
})

describe('GET /dev/chains/:network/head', () => {
  it('answers the head, and 404 for an unknown network', async () => {
    await simulator.mineBlocks('SOLANA_DEVNET', 2)
    const head = await app.inject({ method: 'GET', url: '/dev/chains/solana_devnet/head' })
    expect(head.statusCode).toBe(200)
    expect(head.json()).toEqual(await simulator.head('SOLANA_DEVNET'))
    expect(head.json().height).toBe(3)
    const unknown = await app.inject({ method: 'GET', url: '/dev/chains/ethereum/head' })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } })
  })
})
