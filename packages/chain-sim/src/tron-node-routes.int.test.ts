import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChainSimulator } from './simulator.js'
import { type SimulatorNode, startSimulatorNode } from './testing/simulator-node.js'
import { SIMULATED_MULTISEND_CONTRACT_HEX } from './tron-node-routes.js'

// accounts as java-tron prints them; USDT_HEX is TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t (Tether's TRC20 contract)
const USDT_HEX = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c'
const NILE_USDT_HEX = '41eca9bc828a3005b9a3b909f2cc5c2a54794de05f'
const PAYER = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre'
const PAYER_HEX = '416e3b44b96104b26f84057974a1f0c9880f7c9b13'
const PAYEE = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx'
const PAYEE_HEX = '41ec20315a879c48f5e3a6a1c9826d5225f8b658b8'
const COUNTERFEIT_USDT = 'THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ'
const COUNTERFEIT_USDT_HEX = '4155459d5cc2974e618b57ace6ce92094c6ca77780'
const SECOND_PAYEE = 'TUznHJfHe6gdYY7gvWmf6bNZHuPHDZtowf'
const SECOND_PAYEE_HEX = '41d0b69631440f0a494bb51f7eee68ff5c593c00f0'
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

// biome-ignore lint/suspicious/noExplicitAny: node answers are read loosely and checked with expect
type NodeAnswer = any

let node: SimulatorNode
let simulator: ChainSimulator

beforeEach(async () => {
  node = await startSimulatorNode()
  simulator = node.simulator
})

afterEach(() => node.close())

async function post(
  path: string,
  body?: object,
): Promise<{ status: number; text: string; json: NodeAnswer }> {
  const response = await fetch(`${node.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? '' : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, text, json: JSON.parse(text) }
}

async function get(path: string): Promise<NodeAnswer> {
  return (await fetch(`${node.url}${path}`)).json()
}

/** mines the block holding everything submitted so far; returns its number */
async function mined(network = 'TRON'): Promise<number> {
  return (await simulator.mineBlocks(network, 1)).height
}

describe('tronNodeRoutes: blocks', () => {
  it('answers getnowblock with the head block as java-tron prints an empty one', async () => {
    await simulator.mineBlocks('TRON', 2)
    const head = await simulator.head('TRON')
    const [parent] = await simulator.blockDetails('TRON', head.height - 1, head.height - 1)

    const block = await get('/chains/TRON/wallet/getnowblock')

    expect(block).toEqual({
      blockID: head.hash,
      block_header: {
        raw_data: {
          number: head.height,
          txTrieRoot: '0'.repeat(64),
          witness_address: expect.stringMatching(/^41[0-9a-f]{40}$/),
          parentHash: parent?.hash,
          version: 34,
          timestamp: Date.parse(head.time),
        },
        witness_signature: expect.stringMatching(/^[0-9a-f]{130}$/),
      },
    })
    // java-tron leaves the key out of an empty block
    expect(block).not.toHaveProperty('transactions')
    expect(block.blockID.slice(0, 16)).toBe(head.height.toString(16).padStart(16, '0'))
    expect(await post('/chains/TRON/wallet/getnowblock')).toMatchObject({ status: 200, json: block })
  })

  it('answers getblockbynum, getblockbyid and getblock, and {} for a block that does not exist', async () => {
    const head = await simulator.mineBlocks('TRON', 3)
    const byNumber = (await post('/chains/TRON/wallet/getblockbynum', { num: head.height - 1 })).json
    expect(byNumber.block_header.raw_data.number).toBe(head.height - 1)
    expect((await post('/chains/TRON/wallet/getblockbyid', { value: byNumber.blockID })).json).toEqual(
      byNumber,
    )
    expect(
      (await post('/chains/TRON/wallet/getblock', { id_or_num: String(head.height - 1), detail: true })).json,
    ).toEqual(byNumber)
    expect((await post('/chains/TRON/wallet/getblock', {})).json.blockID).toBe(head.hash)
    expect(await get(`/chains/TRON/wallet/getblockbynum?num=${head.height}`)).toMatchObject({
      blockID: head.hash,
    })

    expect((await post('/chains/TRON/wallet/getblockbynum', { num: head.height + 1 })).json).toEqual({})
    const unknownId = `${head.height.toString(16).padStart(16, '0')}${'ab'.repeat(24)}`
    expect((await post('/chains/TRON/wallet/getblockbyid', { value: unknownId })).json).toEqual({})
    expect((await post('/chains/TRON/wallet/getblockbynum', { num: 'x' })).json).toEqual({
      Error: expect.stringContaining('NumberFormatException'),
    })
  })

  it('answers getblockbylimitnext for [startNum, endNum) up to the head, at most 100 blocks', async () => {
    const head = await simulator.mineBlocks('TRON', 5)
    const range = (
      await post('/chains/TRON/wallet/getblockbylimitnext', {
        startNum: head.height - 3,
        endNum: head.height + 1,
      })
    ).json
    const numbers = range.block.map((block: NodeAnswer) => block.block_header.raw_data.number)
    expect(numbers).toEqual([head.height - 3, head.height - 2, head.height - 1, head.height])
    for (const [position, block] of range.block.entries()) {
      if (position > 0) expect(block.block_header.raw_data.parentHash).toBe(range.block[position - 1].blockID)
    }
    expect(
      (
        await post('/chains/TRON/wallet/getblockbylimitnext', {
          startNum: head.height + 1,
          endNum: head.height + 9,
        })
      ).json,
    ).toEqual({
      block: [],
    })
    expect(
      (await post('/chains/TRON/wallet/getblockbylimitnext', { startNum: 1, endNum: 102 })).json,
    ).toEqual({})
    expect((await post('/chains/TRON/wallet/getblockbylimitnext', { startNum: 4, endNum: 4 })).json).toEqual(
      {},
    )
  })

  it('serves the solidified chain on walletsolidity, 18 blocks behind the head', async () => {
    expect(await get('/chains/TRON/walletsolidity/getnowblock')).toEqual({})
    const head = await simulator.mineBlocks('TRON', 25)
    const solid = await get('/chains/TRON/walletsolidity/getnowblock')
    expect(solid.block_header.raw_data.number).toBe(head.height - 18)
    expect(solid.block_header.raw_data.number).toBe(await simulator.finalizedHeight('TRON'))
    expect(
      (await post('/chains/TRON/walletsolidity/getblockbynum', { num: head.height - 18 })).json.blockID,
    ).toBe(solid.blockID)
    expect((await post('/chains/TRON/walletsolidity/getblockbynum', { num: head.height - 17 })).json).toEqual(
      {},
    )
    expect((await post('/chains/TRON/wallet/getblockbynum', { num: head.height - 17 })).json).not.toEqual({})
  })

  it('answers 404 for networks it does not simulate and for Solana ones', async () => {
    for (const path of [
      '/chains/SOLANA/wallet/getnowblock',
      '/chains/TRON_SHASTA/wallet/getnowblock',
      '/chains/TRON/wallet/nosuch',
    ]) {
      expect((await post(path)).status).toBe(404)
    }
    expect((await get('/chains/tron_nile/wallet/getnowblock')).blockID).toBe(
      (await simulator.head('TRON_NILE')).hash,
    )
  })
})

describe('tronNodeRoutes: transactions and receipts', () => {
  it('prints a TRX transfer as a TransferContract with hex addresses and a bare receipt', async () => {
    const { txHash } = await simulator.submitTransfer('TRON', {
      to: PAYEE,
      from: PAYER,
      amount: '1.5',
      currency: 'TRX',
    })
    const height = await mined()

    const block = (await post('/chains/TRON/wallet/getblockbynum', { num: height })).json
    expect(block.transactions).toHaveLength(1)
    const [transaction] = block.transactions
    expect(transaction).toMatchObject({
      ret: [{ contractRet: 'SUCCESS' }],
      txID: txHash,
      raw_data: {
        contract: [
          {
            type: 'TransferContract',
            parameter: {
              type_url: 'type.googleapis.com/protocol.TransferContract',
              value: { amount: 1_500_000, owner_address: PAYER_HEX, to_address: PAYEE_HEX },
            },
          },
        ],
        ref_block_bytes: ((height - 1) & 0xffff).toString(16).padStart(4, '0'),
        ref_block_hash: block.block_header.raw_data.parentHash.slice(16, 32),
      },
      raw_data_hex: expect.stringMatching(/^[0-9a-f]+$/),
      signature: [expect.stringMatching(/^[0-9a-f]{130}$/)],
    })
    expect(transaction.raw_data).not.toHaveProperty('fee_limit')
    expect(transaction.raw_data.expiration).toBeGreaterThan(transaction.raw_data.timestamp)

    const infos = (await post('/chains/TRON/wallet/gettransactioninfobyblocknum', { num: height })).json
    expect(infos).toEqual([
      {
        id: txHash,
        blockNumber: height,
        blockTimeStamp: block.block_header.raw_data.timestamp,
        contractResult: [''],
        receipt: { net_usage: 268 },
      },
    ])
  })

  it('prints a TRC20 transfer as a call of transfer(address,uint256) and its receipt with one Transfer log', async () => {
    const { txHash } = await simulator.submitTransfer('TRON', {
      to: PAYEE,
      from: PAYER,
      amount: '41.677389',
      currency: 'USDT',
    })
    const height = await mined()

    const [transaction] = (await post('/chains/TRON/wallet/getblockbynum', { num: height })).json.transactions
    // the same call as the real mainnet tx 0130dfde... of chain-tron's fixtures (tron-mainnet.ts)
    expect(transaction.raw_data.contract[0]).toEqual({
      type: 'TriggerSmartContract',
      parameter: {
        type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
        value: {
          data: 'a9059cbb000000000000000000000000ec20315a879c48f5e3a6a1c9826d5225f8b658b800000000000000000000000000000000000000000000000000000000027bf24d',
          owner_address: PAYER_HEX,
          contract_address: USDT_HEX,
        },
      },
    })
    expect(transaction.raw_data.fee_limit).toBe(100_000_000)
    expect(transaction.ret).toEqual([{ contractRet: 'SUCCESS' }])

    const [info] = (await post('/chains/TRON/wallet/gettransactioninfobyblocknum', { num: height })).json
    expect(info).toMatchObject({
      id: txHash,
      blockNumber: height,
      contract_address: USDT_HEX,
      receipt: { result: 'SUCCESS' },
      log: [
        {
          address: USDT_HEX.slice(2),
          topics: [
            TRANSFER_TOPIC,
            '0000000000000000000000006e3b44b96104b26f84057974a1f0c9880f7c9b13',
            '000000000000000000000000ec20315a879c48f5e3a6a1c9826d5225f8b658b8',
          ],
          data: '00000000000000000000000000000000000000000000000000000000027bf24d',
        },
      ],
    })
    expect(info).not.toHaveProperty('result')
  })

  it('prints a multi-transfer transaction as one multisend call with a Transfer log per transfer', async () => {
    const { txHash } = await simulator.submitTransaction('TRON', {
      from: PAYER,
      transfers: [
        { to: PAYEE, amount: '1', currency: 'USDT' },
        { to: SECOND_PAYEE, amount: '2', currency: 'USDT', contract: COUNTERFEIT_USDT },
        { to: PAYEE, amount: '3', currency: 'USDT' },
      ],
    })
    const height = await mined()

    const [transaction] = (await post('/chains/TRON/wallet/getblockbynum', { num: height })).json.transactions
    const value = transaction.raw_data.contract[0].parameter.value
    expect(value.contract_address).toBe(SIMULATED_MULTISEND_CONTRACT_HEX)
    expect(value.data.slice(0, 8)).toBe('cd72250d')
    // three dynamic arrays: 3 offsets, then (length + 3 items) each
    expect(value.data.length).toBe(8 + 64 * (3 + 3 * 4))

    const [info] = (await post('/chains/TRON/wallet/gettransactioninfobyblocknum', { num: height })).json
    expect(info.id).toBe(txHash)
    expect(info.contract_address).toBe(SIMULATED_MULTISEND_CONTRACT_HEX)
    expect(
      info.log.map((log: NodeAnswer) => [log.address, log.topics[2].slice(24), BigInt(`0x${log.data}`)]),
    ).toEqual([
      [USDT_HEX.slice(2), PAYEE_HEX.slice(2), 1_000_000n],
      [COUNTERFEIT_USDT_HEX.slice(2), SECOND_PAYEE_HEX.slice(2), 2_000_000n],
      [USDT_HEX.slice(2), PAYEE_HEX.slice(2), 3_000_000n],
    ])
  })

  it.each(['REVERT', 'OUT_OF_ENERGY'] as const)(
    'prints a TRC20 transfer that failed with %s: contractRet, receipt.result, FAILED, resMessage, no log',
    async (failure) => {
      const { txHash } = await simulator.submitTransaction('TRON', {
        from: PAYER,
        transfers: [{ to: PAYEE, amount: '5', currency: 'USDT' }],
        failure,
      })
      const height = await mined()

      const [transaction] = (await post('/chains/TRON/wallet/getblockbynum', { num: height })).json
        .transactions
      expect(transaction.ret).toEqual([{ contractRet: failure }])
      expect(transaction.raw_data.contract[0].parameter.value.data.slice(0, 8)).toBe('a9059cbb')

      const [info] = (await post('/chains/TRON/wallet/gettransactioninfobyblocknum', { num: height })).json
      expect(info).toMatchObject({
        id: txHash,
        contract_address: USDT_HEX,
        receipt: { result: failure },
        result: 'FAILED',
      })
      expect(info).not.toHaveProperty('log')
      expect(info.contractResult).toEqual([''])
      const message = Buffer.from(info.resMessage, 'hex').toString()
      expect(message).toMatch(failure === 'REVERT' ? /^REVERT opcode executed$/ : /^Not enough energy/)
    },
  )

  it('prints amounts above 2^53 exactly, and the Nile USDT contract on TRON_NILE', async () => {
    await simulator.submitTransfer('TRON', { to: PAYEE, amount: '12345678901.234567', currency: 'TRX' })
    const height = await mined()
    const { text } = await post('/chains/TRON/wallet/getblockbynum', { num: height })
    expect(text).toContain('"amount":12345678901234567')

    await simulator.submitTransfer('TRON_NILE', { to: PAYEE, amount: '1', currency: 'USDT' })
    const nileHeight = await mined('TRON_NILE')
    const [info] = (await post('/chains/TRON_NILE/wallet/gettransactioninfobyblocknum', { num: nileHeight }))
      .json
    expect(info.contract_address).toBe(NILE_USDT_HEX)
    expect(info.log[0].address).toBe(NILE_USDT_HEX.slice(2))
  })

  it('answers gettransactioninfobyblocknum with [] for an empty or unknown block and {} for num 0', async () => {
    const head = await simulator.mineBlocks('TRON', 1)
    expect(
      (await post('/chains/TRON/wallet/gettransactioninfobyblocknum', { num: head.height })).json,
    ).toEqual([])
    expect(
      (await post('/chains/TRON/wallet/gettransactioninfobyblocknum', { num: head.height + 5 })).json,
    ).toEqual([])
    expect((await post('/chains/TRON/wallet/gettransactioninfobyblocknum', { num: 0 })).json).toEqual({})
  })

  it('renders a rolled-back transaction nowhere and the blocks from its height with new ids', async () => {
    const { txHash } = await simulator.submitTransfer('TRON', { to: PAYEE, amount: '7', currency: 'USDT' })
    const height = await mined()
    await simulator.mineBlocks('TRON', 2)
    const before = (await post('/chains/TRON/wallet/getblockbynum', { num: height })).json
    expect(before.transactions[0].txID).toBe(txHash)

    expect(await simulator.dropTransaction('TRON', txHash)).toBe(true)

    const after = (await post('/chains/TRON/wallet/getblockbynum', { num: height })).json
    expect(after.blockID).not.toBe(before.blockID)
    expect(after).not.toHaveProperty('transactions')
    expect((await post('/chains/TRON/wallet/gettransactioninfobyblocknum', { num: height })).json).toEqual([])
  })
})

describe('tronNodeRoutes: issue 12 cases', () => {
  it('answers gettransactioninfobyid on the full node at once and on walletsolidity once solidified; {} otherwise', async () => {
    const { txHash } = await simulator.submitTransfer('TRON', { to: PAYEE, amount: '2', currency: 'USDT' })
    const height = await mined()
    const full = await post('/chains/TRON/wallet/gettransactioninfobyid', { value: txHash })
    expect(full.json).toMatchObject({ id: txHash, blockNumber: height, receipt: { result: 'SUCCESS' } })
    expect(
      (await post('/chains/TRON/walletsolidity/gettransactioninfobyid', { value: txHash })).json,
    ).toEqual({})
    await simulator.mineBlocks('TRON', 18)
    const solid = await post('/chains/TRON/walletsolidity/gettransactioninfobyid', { value: txHash })
    expect(solid.json).toEqual(full.json)
    expect(
      (await post('/chains/TRON/wallet/gettransactioninfobyid', { value: 'ab'.repeat(32) })).json,
    ).toEqual({})
  })

  it('prints TRX a contract sent as the internal transactions of its receipt, as java-tron with vm.saveInternalTx', async () => {
    const { txHash } = await simulator.submitTransaction('TRON', {
      from: PAYER,
      transfers: [{ to: PAYEE, amount: '7.25', currency: 'TRX', internal: true }],
    })
    const height = await mined()
    const [info] = (await post('/chains/TRON/wallet/gettransactioninfobyblocknum', { num: height })).json
    expect(info).toMatchObject({ id: txHash, receipt: { result: 'SUCCESS' } })
    expect(info.log).toBeUndefined()
    expect(info.internal_transactions).toEqual([
      {
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        caller_address: info.contract_address,
        transferTo_address: PAYEE_HEX,
        callValueInfo: [{ callValue: 7_250_000 }],
        note: '63616c6c',
      },
    ])
    const block = await post('/chains/TRON/wallet/getblockbynum', { num: height })
    expect(block.json.transactions[0].raw_data.contract[0]).toMatchObject({
      type: 'TriggerSmartContract',
      parameter: { value: { owner_address: PAYER_HEX, contract_address: info.contract_address } },
    })
  })

  it('re-includes a popped transaction in the next block when it is re-queued, with the expiration it was built with', async () => {
    const { txHash } = await simulator.submitTransfer('TRON', { to: PAYEE, amount: '1', currency: 'TRX' })
    const first = await mined()
    const before = (await post('/chains/TRON/wallet/getblockbynum', { num: first })).json.transactions[0]
    expect(await simulator.dropTransaction('TRON', txHash, { requeue: true })).toBe(true)
    expect(
      (await post('/chains/TRON/wallet/getblockbynum', { num: first })).json.transactions,
    ).toBeUndefined()
    const again = await mined()
    const after = (await post('/chains/TRON/wallet/getblockbynum', { num: again })).json.transactions[0]
    expect(after.txID).toBe(txHash)
    expect(after.raw_data.expiration).toBe(before.raw_data.expiration)
  })

  it('answers no block below the first one a node started from a snapshot has', async () => {
    await simulator.mineBlocks('TRON', 30)
    simulator.forgetHistoryBelow('TRON', 20)
    expect((await post('/chains/TRON/wallet/getblockbynum', { num: 19 })).json).toEqual({})
    expect(
      (await post('/chains/TRON/wallet/getblockbynum', { num: 20 })).json.block_header.raw_data.number,
    ).toBe(20)
    const range = await post('/chains/TRON/wallet/getblockbylimitnext', { startNum: 15, endNum: 22 })
    expect(range.json.block.map((block: NodeAnswer) => block.block_header.raw_data.number)).toEqual([20, 21])
  })
})
