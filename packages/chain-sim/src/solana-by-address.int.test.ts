// The simulated Solana node read by address, as the watcher of docs/chains.md ("Solana by address")
// reads a real one: through @solana/web3.js's Connection over HTTP and its websocket.
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { type AccountInfo, Connection, type Logs, PublicKey, type SignatureResult } from '@solana/web3.js'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { simulatedAddress } from './chain-format.js'
import type { ChainSimulator } from './simulator.js'
import { type SimulatorNode, startSimulatorNode, testNetworks } from './testing/simulator-node.js'

const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string
const TOKEN_PROGRAM = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const ASSOCIATED_TOKEN_PROGRAM = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')
/** Solana's finality depth in the simulator (chain-format.ts) */
const FINALITY_DEPTH = 31

let node: SimulatorNode
let simulator: ChainSimulator
let connection: Connection

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('TRON', 'SOLANA') })
  simulator = node.simulator
  connection = new Connection(node.solanaUrl('SOLANA'), {
    commitment: 'confirmed',
    wsEndpoint: node.solanaWsUrl('SOLANA'),
    httpAgent: false,
  })
})

/** how each test's web3.js listeners are removed: web3.js reconnects as long as it has one */
let removals: Array<() => Promise<void>> = []

afterEach(async () => {
  await Promise.all(removals.map((remove) => remove()))
  removals = []
  await node.close()
})

function watchAccount(address: string, callback: (info: AccountInfo<Buffer>, slot: number) => void): number {
  const id = connection.onAccountChange(new PublicKey(address), (info, { slot }) => callback(info, slot), {
    commitment: 'confirmed',
  })
  removals.push(() => connection.removeAccountChangeListener(id))
  return id
}

function associatedTokenAccount(owner: string, mint: string): string {
  const [address] = PublicKey.findProgramAddressSync(
    [new PublicKey(owner).toBuffer(), TOKEN_PROGRAM.toBuffer(), new PublicKey(mint).toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM,
  )
  return address.toBase58()
}

async function paySol(to: string, amount: string) {
  const { txHash } = await simulator.submitTransfer('SOLANA', { to, amount, currency: 'SOL' })
  await simulator.mineBlocks('SOLANA', 1)
  return txHash
}

/** resolves with the first value `listen` hands its callback */
function nextEvent<T>(listen: (deliver: (value: T) => void) => void): Promise<T> {
  return new Promise((resolve) => listen(resolve))
}

describe('getSignaturesForAddress through web3.js', () => {
  it('lists the transactions holding an address newest first, failed ones too, and pages with before and until', async () => {
    const watched = simulatedAddress('SOLANA')
    const first = await paySol(watched, '0.5')
    await paySol(simulatedAddress('SOLANA'), '1') // someone else's
    const { txHash: failed } = await simulator.submitTransfer('SOLANA', {
      to: watched,
      amount: '2',
      currency: 'SOL',
      fail: true,
    })
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    const last = await paySol(watched, '0.25')
    const address = new PublicKey(watched)

    const listed = await connection.getSignaturesForAddress(address)
    expect(listed.map((item) => item.signature)).toEqual([last, failed, first])
    const [block] = await simulator.blockDetails('SOLANA', height, height)
    expect(listed[1]).toEqual({
      signature: failed,
      slot: height,
      err: { InstructionError: [0, { Custom: 1 }] },
      memo: null,
      blockTime: Math.floor(Date.parse(block?.time as string) / 1000),
      confirmationStatus: 'confirmed',
    })

    expect((await connection.getSignaturesForAddress(address, { limit: 1 })).map((i) => i.signature)).toEqual(
      [last],
    )
    const older = await connection.getSignaturesForAddress(address, { before: last })
    expect(older.map((item) => item.signature)).toEqual([failed, first])
    const newer = await connection.getSignaturesForAddress(address, { until: first })
    expect(newer.map((item) => item.signature)).toEqual([last, failed])

    // nothing is final yet; once finalized, the finalized listing has them
    expect(await connection.getSignaturesForAddress(address, {}, 'finalized')).toEqual([])
    await simulator.mineBlocks('SOLANA', FINALITY_DEPTH)
    const final = await connection.getSignaturesForAddress(address, {}, 'finalized')
    expect(final.map((item) => [item.signature, item.confirmationStatus])).toEqual([
      [last, 'finalized'],
      [failed, 'finalized'],
      [first, 'finalized'],
    ])
  })

  it('lists a token account receiving SPL but not its owner, and refuses what a node refuses', async () => {
    const owner = simulatedAddress('SOLANA')
    const account = await simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    const { txHash } = await simulator.submitTransfer('SOLANA', {
      to: account.address,
      amount: '3',
      currency: 'USDC',
    })
    await simulator.mineBlocks('SOLANA', 1)
    const listed = await connection.getSignaturesForAddress(new PublicKey(account.address))
    expect(listed.map((item) => item.signature)).toEqual([txHash])
    expect(await connection.getSignaturesForAddress(new PublicKey(owner))).toEqual([])

    await expect(connection.getSignaturesForAddress(new PublicKey(owner), { limit: 1001 })).rejects.toThrow(
      /Invalid limit; max 1000/,
    )
    // web3.js does not send `processed` itself
    const processed = await node.app.inject({
      method: 'POST',
      url: '/chains/SOLANA',
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'getSignaturesForAddress',
        params: [owner, { commitment: 'processed' }],
      },
    })
    expect(processed.json().error).toEqual({
      code: -32602,
      message: 'Invalid params: Method does not support commitment below `confirmed`.',
    })
  })
  it('reads each block once for all listings, and lists what a fork left after it', async () => {
    const watched = simulatedAddress('SOLANA')
    const paid = await paySol(watched, '0.5')
    await simulator.mineBlocks('SOLANA', 3000)
    const reads = vi.spyOn(simulator, 'blockDetails')
    const address = new PublicKey(watched)
    expect((await connection.getSignaturesForAddress(address)).map((item) => item.signature)).toEqual([paid])
    const first = reads.mock.calls.length
    await simulator.mineBlocks('SOLANA', 1000)
    for (let listing = 0; listing < 10; listing++) {
      await connection.getSignaturesForAddress(address, { until: paid })
      await connection.getSignaturesForAddress(new PublicKey(simulatedAddress('SOLANA')))
    }
    // the first listing read the chain in batches; the next ones the 1,000 new blocks once, and
    // each the last block the index holds (a fork would have given it another hash) and the block
    // of `until`: not the 4,000 blocks each listing walked before
    expect(first).toBeLessThan(10)
    expect(reads.mock.calls.length - first).toBeLessThanOrEqual(1 + 10 * 3)

    const { txHash: again } = await simulator.submitTransfer('SOLANA', {
      to: watched,
      amount: '1',
      currency: 'SOL',
    })
    await simulator.mineBlocks('SOLANA', 2)
    expect((await connection.getSignaturesForAddress(address)).map((item) => item.signature)).toEqual([
      again,
      paid,
    ])
    expect(await simulator.dropTransaction('SOLANA', again)).toBe(true)
    expect((await connection.getSignaturesForAddress(address)).map((item) => item.signature)).toEqual([paid])
    reads.mockRestore()
  })
})

describe('getTransaction through web3.js', () => {
  it('reads an SPL payment to the associated and to another token account of one owner, with their owners in the meta', async () => {
    const owner = simulatedAddress('SOLANA')
    const associated = await simulator.openTokenAccount('SOLANA', {
      owner,
      currency: 'USDC',
      address: associatedTokenAccount(owner, USDC),
    })
    const other = await simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    expect(other.address).not.toBe(associated.address)
    await simulator.submitTransfer('SOLANA', { to: simulatedAddress('SOLANA'), amount: '1', currency: 'SOL' })
    // second in its block: a v0 transaction whose receiving keys come from a lookup table
    const { txHash } = await simulator.submitTransaction('SOLANA', {
      transfers: [
        { to: associated.address, amount: '10', currency: 'USDC' },
        { to: other.address, amount: '2.5', currency: 'USDC' },
      ],
    })
    await simulator.mineBlocks('SOLANA', 1)

    const parsed = await connection.getParsedTransaction(txHash, { maxSupportedTransactionVersion: 0 })
    expect(parsed?.version).toBe(0)
    expect(parsed?.meta?.err).toBeNull()
    const keys = parsed?.transaction.message.accountKeys.map((key) => key.pubkey.toBase58()) ?? []
    const received = (address: string) => {
      const index = keys.indexOf(address)
      const balance = (list: Loose) => list.find((item: Loose) => item.accountIndex === index)
      const pre = balance(parsed?.meta?.preTokenBalances)
      const post = balance(parsed?.meta?.postTokenBalances)
      expect(pre).toMatchObject({ mint: USDC, owner })
      expect(post).toMatchObject({ mint: USDC, owner })
      return BigInt(post.uiTokenAmount.amount) - BigInt(pre.uiTokenAmount.amount)
    }
    expect(received(associated.address)).toBe(10_000_000n)
    expect(received(other.address)).toBe(2_500_000n)

    const raw = await connection.getTransaction(txHash, { maxSupportedTransactionVersion: 0 })
    expect(raw?.transaction.signatures).toEqual([txHash])
    const loaded = raw?.meta?.loadedAddresses?.writable.map((key) => key.toBase58())
    expect(loaded).toEqual(expect.arrayContaining([associated.address, other.address]))
    expect(raw?.meta?.postTokenBalances?.map((balance) => balance.owner)).toContain(owner)

    // a v0 transaction to a client that did not say it reads them; an unknown signature
    await expect(connection.getParsedTransaction(txHash)).rejects.toThrow(/maxSupportedTransactionVersion/)
    const unknown = (await simulator.submitTransfer('SOLANA', { to: owner, amount: '1', currency: 'SOL' }))
      .txHash
    expect(await connection.getTransaction(unknown, { maxSupportedTransactionVersion: 0 })).toBeNull()
    expect(
      await connection.getTransaction(txHash, { commitment: 'finalized', maxSupportedTransactionVersion: 0 }),
    ).toBeNull()
  })

  it('lists the token accounts of an owner with what they hold, by mint or by program', async () => {
    const owner = simulatedAddress('SOLANA')
    const associated = await simulator.openTokenAccount('SOLANA', {
      owner,
      currency: 'USDC',
      address: associatedTokenAccount(owner, USDC),
    })
    const other = await simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    const usdt = await simulator.openTokenAccount('SOLANA', { owner, currency: 'USDT' })
    const { txHash } = await simulator.submitTransfer('SOLANA', {
      to: other.address,
      amount: '4',
      currency: 'USDC',
    })
    await simulator.mineBlocks('SOLANA', 1)

    const byMint = await connection.getParsedTokenAccountsByOwner(new PublicKey(owner), {
      mint: new PublicKey(USDC),
    })
    const held = Object.fromEntries(
      byMint.value.map(({ pubkey, account }) => [pubkey.toBase58(), account.data.parsed.info]),
    )
    expect(Object.keys(held).sort()).toEqual([associated.address, other.address].sort())
    // never paid: the empty account a node lists; paid: what the last transaction left in it
    expect(held[associated.address]).toMatchObject({
      mint: USDC,
      owner,
      tokenAmount: { amount: '0', decimals: 6 },
    })
    const parsed = await connection.getParsedTransaction(txHash, { maxSupportedTransactionVersion: 0 })
    const index = parsed?.transaction.message.accountKeys.findIndex(
      (key) => key.pubkey.toBase58() === other.address,
    )
    const post = parsed?.meta?.postTokenBalances?.find((balance) => balance.accountIndex === index)
    expect(held[other.address]).toMatchObject({
      mint: USDC,
      owner,
      tokenAmount: { amount: post?.uiTokenAmount.amount },
    })

    const byProgram = await connection.getTokenAccountsByOwner(new PublicKey(owner), {
      programId: TOKEN_PROGRAM,
    })
    expect(byProgram.value.map(({ pubkey }) => pubkey.toBase58()).sort()).toEqual(
      [associated.address, other.address, usdt.address].sort(),
    )
    for (const { account } of byProgram.value) {
      expect(account.owner.equals(TOKEN_PROGRAM)).toBe(true)
      expect(new PublicKey(account.data.subarray(32, 64)).toBase58()).toBe(owner)
    }
    expect(
      (await connection.getTokenAccountsByOwner(new PublicKey(usdt.address), { mint: new PublicKey(USDC) }))
        .value,
    ).toEqual([])
  })

  it('lists the associated token accounts a wallet paid without opening them, under their owner', async () => {
    // a wallet paying an SPL payment creates the owner's associated account in the paying
    // transaction: a real node lists it under the owner from then on, whoever paid its rent
    const owner = simulatedAddress('SOLANA')
    const usdcAccount = associatedTokenAccount(owner, USDC)
    const usdt = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDT' })
      .contract as string
    const usdtAccount = associatedTokenAccount(owner, usdt)
    await simulator.submitTransfer('SOLANA', { to: usdcAccount, amount: '10', currency: 'USDC' })
    await simulator.submitTransfer('SOLANA', { to: usdtAccount, amount: '3', currency: 'USDT' })
    // another owner's associated account is not this owner's
    await simulator.submitTransfer('SOLANA', {
      to: associatedTokenAccount(simulatedAddress('SOLANA'), USDC),
      amount: '1',
      currency: 'USDC',
    })
    await simulator.mineBlocks('SOLANA', 1)

    const byProgram = await connection.getParsedTokenAccountsByOwner(new PublicKey(owner), {
      programId: TOKEN_PROGRAM,
    })
    const held = Object.fromEntries(
      byProgram.value.map(({ pubkey, account }) => [pubkey.toBase58(), account.data.parsed.info]),
    )
    expect(held).toEqual({
      [usdcAccount]: expect.objectContaining({
        mint: USDC,
        owner,
        tokenAmount: expect.objectContaining({ amount: '10000000' }),
      }),
      [usdtAccount]: expect.objectContaining({
        mint: usdt,
        owner,
        tokenAmount: expect.objectContaining({ amount: '3000000' }),
      }),
    })
    const byMint = await connection.getTokenAccountsByOwner(new PublicKey(owner), {
      mint: new PublicKey(USDC),
    })
    expect(byMint.value.map(({ pubkey }) => pubkey.toBase58())).toEqual([usdcAccount])
  })

  it('opens token accounts through the dev route, refusing an address held by another owner', async () => {
    const owner = simulatedAddress('SOLANA')
    const open = (body: unknown) =>
      node.app.inject({ method: 'POST', url: '/dev/chains/SOLANA/token-accounts', payload: body as object })
    const opened = await open({ owner, currency: 'USDT' })
    expect(opened.statusCode).toBe(201)
    const account = opened.json()
    expect(account).toMatchObject({ owner, mint: expect.any(String), address: expect.any(String) })
    expect((await open({ owner, currency: 'USDT', address: account.address })).json()).toEqual(account)
    const taken = await open({
      owner: simulatedAddress('SOLANA'),
      currency: 'USDT',
      address: account.address,
    })
    expect(taken.statusCode).toBe(400)
    expect(taken.json().error.code).toBe('VALIDATION_ERROR')
    expect((await open({ owner, currency: 'SOL' })).statusCode).toBe(400)
  })
})

describe('websocket pubsub through web3.js', () => {
  it('notifies an account change for a SOL payment, and stops once the listener is removed', async () => {
    const watched = simulatedAddress('SOLANA')
    const changes: AccountInfo<Buffer>[] = []
    let listener = 0
    const first = nextEvent<{ info: AccountInfo<Buffer>; slot: number }>((deliver) => {
      listener = watchAccount(watched, (info, slot) => {
        changes.push(info)
        deliver({ info, slot })
      })
    })
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(1))
    const txHash = await paySol(watched, '1.5')
    const { info, slot } = await first
    const transaction = await connection.getTransaction(txHash, { maxSupportedTransactionVersion: 0 })
    const index = transaction?.transaction.message.staticAccountKeys.findIndex(
      (key) => key.toBase58() === watched,
    ) as number
    expect(slot).toBe(transaction?.slot)
    expect(info.lamports).toBe(transaction?.meta?.postBalances[index])
    expect(info.owner.toBase58()).toBe(SYSTEM_PROGRAM)
    expect(info.data.length).toBe(0)

    await connection.removeAccountChangeListener(listener)
    removals = []
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(0))
    await paySol(watched, '1')
    await simulator.mineBlocks('SOLANA', 2)
    // one more look of the node at its chain, then nothing came
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(changes).toHaveLength(1)
  })

  it('notifies the logs of a transfer to a token account, and its new state with owner and amount', async () => {
    const owner = simulatedAddress('SOLANA')
    const account = await simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    const key = new PublicKey(account.address)
    const logs = nextEvent<Logs>((deliver) => {
      const id = connection.onLogs(key, (value) => deliver(value), 'confirmed')
      removals.push(() => connection.removeOnLogsListener(id))
    })
    const state = nextEvent<AccountInfo<Buffer>>((deliver) => watchAccount(account.address, deliver))
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(2))
    const { txHash } = await simulator.submitTransfer('SOLANA', {
      to: account.address,
      amount: '7',
      currency: 'USDC',
    })
    await simulator.mineBlocks('SOLANA', 1)

    const notified = await logs
    expect(notified.signature).toBe(txHash)
    expect(notified.err).toBeNull()
    expect(notified.logs).toContain('Program log: Instruction: Transfer')

    const info = await state
    expect(info.owner.equals(TOKEN_PROGRAM)).toBe(true)
    expect(info.data.length).toBe(165)
    expect(new PublicKey(info.data.subarray(0, 32)).toBase58()).toBe(USDC)
    expect(new PublicKey(info.data.subarray(32, 64)).toBase58()).toBe(owner)
    const parsed = await connection.getParsedTransaction(txHash, { maxSupportedTransactionVersion: 0 })
    const index = parsed?.transaction.message.accountKeys.findIndex((k) => k.pubkey.equals(key))
    const post = parsed?.meta?.postTokenBalances?.find((balance) => balance.accountIndex === index)
    expect(info.data.readBigUInt64LE(64).toString()).toBe(post?.uiTokenAmount.amount)
  })

  it("notifies a change of any token account of an owner, associated or not, through the token program's filters", async () => {
    const owner = simulatedAddress('SOLANA')
    const other = await simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    const changed: Array<{ pubkey: string; owner: string; mint: string }> = []
    const id = connection.onProgramAccountChange(
      TOKEN_PROGRAM,
      ({ accountId, accountInfo }) =>
        changed.push({
          pubkey: accountId.toBase58(),
          mint: new PublicKey(accountInfo.data.subarray(0, 32)).toBase58(),
          owner: new PublicKey(accountInfo.data.subarray(32, 64)).toBase58(),
        }),
      { commitment: 'confirmed', filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: owner } }] },
    )
    removals.push(() => connection.removeProgramAccountChangeListener(id))
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(1))

    await simulator.submitTransaction('SOLANA', {
      transfers: [
        { to: other.address, amount: '1', currency: 'USDC' },
        // a stranger's account in the same transaction is not the owner's
        { to: simulatedAddress('SOLANA'), amount: '1', currency: 'USDC' },
      ],
    })
    await simulator.mineBlocks('SOLANA', 1)
    await vi.waitFor(() => expect(changed).toEqual([{ pubkey: other.address, owner, mint: USDC }]))
  })

  it('notifies a signature once it is in a block, at the asked commitment', async () => {
    const { txHash } = await simulator.submitTransfer('SOLANA', {
      to: simulatedAddress('SOLANA'),
      amount: '1',
      currency: 'SOL',
      fail: true,
    })
    const result = nextEvent<{ value: SignatureResult; slot: number }>((deliver) =>
      connection.onSignature(txHash, (value, context) => deliver({ value, slot: context.slot }), 'confirmed'),
    )
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(1))
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    expect(await result).toEqual({ value: { err: { InstructionError: [0, { Custom: 1 }] } }, slot: height })
    // one-shot: the node ends the subscription itself
    expect(node.solanaPubsub.subscriptionCount()).toBe(0)
  })

  it('is reconnected to after the node drops the socket, and web3.js subscribes again', async () => {
    const watched = simulatedAddress('SOLANA')
    const slots: number[] = []
    watchAccount(watched, (_info, slot) => slots.push(slot))
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(1))

    expect(node.solanaPubsub.dropConnections()).toBe(1)
    expect(node.solanaPubsub.subscriptionCount()).toBe(0)
    // web3.js reconnects after a second and sends its subscription again
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(1), { timeout: 5_000 })
    await paySol(watched, '0.1')
    const head = await simulator.head('SOLANA')
    await vi.waitFor(() => expect(slots).toEqual([head.height]))
  }, 15_000)
})

describe('websocket pubsub, raw', () => {
  async function open(network = 'SOLANA'): Promise<WebSocket> {
    const socket = new WebSocket(node.solanaWsUrl(network))
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    return socket
  }

  function call(socket: WebSocket, id: number, method: string, params: unknown[]): Promise<Loose> {
    socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    return new Promise((resolve) => {
      const onMessage = (data: WebSocket.RawData) => {
        const body = JSON.parse(String(data))
        if (body.id !== id) return
        socket.off('message', onMessage)
        resolve(body)
      }
      socket.on('message', onMessage)
    })
  }

  it('answers subscribe and unsubscribe as a node does, errors included', async () => {
    const socket = await open()
    const address = simulatedAddress('SOLANA')
    const subscribed = await call(socket, 1, 'logsSubscribe', [
      { mentions: [address] },
      { commitment: 'confirmed' },
    ])
    expect(subscribed).toEqual({ jsonrpc: '2.0', result: expect.any(Number), id: 1 })
    expect(await call(socket, 2, 'logsUnsubscribe', [subscribed.result])).toEqual({
      jsonrpc: '2.0',
      result: true,
      id: 2,
    })
    expect((await call(socket, 3, 'logsUnsubscribe', [subscribed.result])).error).toEqual({
      code: -32602,
      message: 'Invalid subscription id.',
    })
    const two = await call(socket, 4, 'logsSubscribe', [{ mentions: [address, simulatedAddress('SOLANA')] }])
    expect(two.error).toEqual({ code: -32602, message: 'Invalid Request: Only 1 address supported' })
    expect((await call(socket, 5, 'accountSubscribe', ['not-a-key'])).error.code).toBe(-32602)
    expect((await call(socket, 6, 'blockSubscribe', ['all'])).error).toEqual({
      code: -32601,
      message: 'Method not found',
    })
    socket.close()
  })

  it('hands a slot only to the subscriptions it concerns, and flush() delivers without the timer', async () => {
    const socket = await open()
    const notifications: Loose[] = []
    socket.on('message', (data) => {
      const body = JSON.parse(String(data))
      if (body.method !== undefined) notifications.push(body)
    })
    // a thousand accounts nobody pays, one that is paid, a token owner and a signature already final
    const owner = simulatedAddress('SOLANA')
    const token = await simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    const { txHash: earlier } = await simulator.submitTransfer('SOLANA', {
      to: simulatedAddress('SOLANA'),
      amount: '1',
      currency: 'SOL',
    })
    await simulator.mineBlocks('SOLANA', FINALITY_DEPTH + 1)
    for (let id = 1; id <= 1000; id++) {
      await call(socket, id, 'accountSubscribe', [simulatedAddress('SOLANA'), { commitment: 'confirmed' }])
    }
    const paid = simulatedAddress('SOLANA')
    const account = await call(socket, 1001, 'accountSubscribe', [paid, { commitment: 'confirmed' }])
    const program = await call(socket, 1002, 'programSubscribe', [
      TOKEN_PROGRAM.toBase58(),
      { commitment: 'confirmed', encoding: 'base64', filters: [{ memcmp: { offset: 32, bytes: owner } }] },
    ])
    const signature = await call(socket, 1003, 'signatureSubscribe', [earlier, { commitment: 'finalized' }])
    expect(node.solanaPubsub.subscriptionCount()).toBe(1003)

    await simulator.submitTransfer('SOLANA', { to: paid, amount: '0.5', currency: 'SOL' })
    await simulator.submitTransfer('SOLANA', { to: token.address, amount: '2', currency: 'USDC' })
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    const before = node.solanaPubsub.traffic()
    await node.solanaPubsub.flush()
    await vi.waitFor(() => expect(notifications).toHaveLength(3))
    expect(notifications.map((body) => [body.method, body.params.subscription]).sort()).toEqual(
      [
        ['accountNotification', account.result],
        ['programNotification', program.result],
        ['signatureNotification', signature.result],
      ].sort(),
    )
    expect(notifications.find((body) => body.method === 'accountNotification').params.result.context).toEqual(
      {
        slot: height,
      },
    )
    const after = node.solanaPubsub.traffic()
    expect(after.notifications - before.notifications).toBe(3)
    expect(after).toMatchObject({ subscribed: 1003, peakSubscriptions: 1003, connections: 1 })
    // the signature's subscription ended with its notification
    expect(node.solanaPubsub.subscriptionCount()).toBe(1002)
    socket.close()
  })

  it('sends account data in the asked encoding: the legacy bare base58 by default, jsonParsed token accounts', async () => {
    const socket = await open()
    const owner = simulatedAddress('SOLANA')
    const account = await simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    const notifications: Loose[] = []
    const texts: string[] = []
    socket.on('message', (data) => {
      const body = JSON.parse(String(data))
      if (body.method !== 'accountNotification') return
      notifications.push(body.params)
      texts.push(String(data))
    })
    const plain = await call(socket, 1, 'accountSubscribe', [owner, { commitment: 'confirmed' }])
    const parsed = await call(socket, 2, 'accountSubscribe', [
      account.address,
      { commitment: 'confirmed', encoding: 'jsonParsed' },
    ])
    await simulator.submitTransaction('SOLANA', {
      transfers: [
        { to: owner, amount: '1', currency: 'SOL' },
        { to: account.address, amount: '5', currency: 'USDC' },
      ],
    })
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    await vi.waitFor(() => expect(notifications).toHaveLength(2))
    const of = (id: number) => notifications.find((params) => params.subscription === id)?.result
    expect(of(plain.result)).toMatchObject({
      context: { slot: height },
      value: {
        data: '',
        executable: false,
        owner: SYSTEM_PROGRAM,
        space: 0,
      },
    })
    // a rent-exempt account's rentEpoch, u64::MAX, written exactly
    expect(texts.every((text) => text.includes('"rentEpoch":18446744073709551615,'))).toBe(true)
    expect(of(parsed.result).value).toMatchObject({
      owner: TOKEN_PROGRAM.toBase58(),
      space: 165,
      data: {
        program: 'spl-token',
        space: 165,
        parsed: { type: 'account', info: { mint: USDC, owner, state: 'initialized', isNative: false } },
      },
    })
    socket.close()
  })

  it('refuses an upgrade for a network that is not a simulated Solana one', async () => {
    await expect(open('TRON')).rejects.toThrow(/404/)
    await expect(open('NOWHERE')).rejects.toThrow(/404/)
  })

  it('wants the simulator token once it is set, as the other simulator routes do, in the header or the query', async () => {
    const token = 'a'.repeat(40)
    const guarded = await startSimulatorNode({ networks: testNetworks('SOLANA'), token })
    try {
      const connect = (headers: Record<string, string>, query = '') =>
        new Promise((resolve, reject) => {
          const socket = new WebSocket(`${guarded.solanaWsUrl('SOLANA')}${query}`, { headers })
          socket.once('open', () => resolve(socket.close()))
          socket.once('error', reject)
        })
      await expect(connect({})).rejects.toThrow(/401/)
      await expect(connect({ 'x-simulator-token': 'b'.repeat(40) })).rejects.toThrow(/401/)
      await expect(connect({ 'x-simulator-token': token })).resolves.toBeUndefined()
      // web3.js sends no header on its websocket: the token may come in the query instead
      await expect(connect({}, `?simulatorToken=${'b'.repeat(40)}`)).rejects.toThrow(/401/)
      await expect(connect({}, `?simulatorToken=${token}`)).resolves.toBeUndefined()
    } finally {
      await guarded.close()
    }
  })
})

// biome-ignore lint/suspicious/noExplicitAny: node answers are read loosely and checked with expect
type Loose = any
