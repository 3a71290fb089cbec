import { defaultAssetRegistry } from '@chainpay/domain'
import { type ChainRpcError, isChainRpcError } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { parseExactJson } from './exact-json.js'
import {
  blockAround,
  nileBlock,
  nonTransferLog,
  outOfEnergyInfo,
  outOfEnergyTransaction,
  trc10TransferTransaction,
  trxTransferInfo,
  trxTransferTransaction,
  usdtTransferInfo,
  usdtTransferLogToTcb8,
  usdtTransferTransaction,
} from './testing/fixtures/tron-mainnet.js'
import {
  needsTransactionInfos,
  readTransactionInfos,
  readTronBlock,
  type TronBlockBody,
  toChainBlock,
  tronTokenContracts,
} from './tron-block-parser.js'
import { parseRetryAfter } from './tron-rpc-errors.js'

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const COUNTERFEIT_USDT_LOG_ADDRESS = '55459d5cc2974e618b57ace6ce92094c6ca77780' // THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ
const mainnetTokens = tronTokenContracts(defaultAssetRegistry, 'TRON')

function parsed(block: object, infos: object[] = [], tokens = mainnetTokens) {
  const body = readTronBlock(block, 'test block') as TronBlockBody
  return toChainBlock(body, readTransactionInfos(infos, 'test infos'), tokens)
}

function rpcErrorOf(work: () => unknown): ChainRpcError {
  try {
    work()
  } catch (error) {
    if (isChainRpcError(error)) return error
    throw error
  }
  throw new Error('expected a ChainRpcError')
}

describe('tronTokenContracts', () => {
  it('maps each network registry contract from 41-hex to its base58 form, and nothing of other networks', () => {
    expect([...mainnetTokens]).toEqual([['41a614f803b6fd780986a42c78ec9c7f77e6ded13c', USDT]])
    expect([...tronTokenContracts(defaultAssetRegistry, 'TRON_NILE')]).toEqual([
      ['41eca9bc828a3005b9a3b909f2cc5c2a54794de05f', 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'],
    ])
  })
})

describe('reading real java-tron blocks', () => {
  it('reads the header of a real Nile getnowblock answer', () => {
    expect(readTronBlock(nileBlock, 'nile')).toEqual({
      height: 66987627,
      hash: '0000000003fe266bf6b6d392f654dc2e5011601546ed04623d9fcc4e9d439a25',
      parentHash: '0000000003fe266a65d5194c947f6f7a059d4646c8e9a5293226bc7fdcfc775e',
      time: '2026-04-29T06:48:27.000Z',
      transactions: [],
    })
    expect(readTronBlock({ ...nileBlock, transactions: [] }, 'nile')?.transactions).toEqual([])
    // java-tron's answer for a block it does not have
    expect(readTronBlock({}, 'nile')).toBeUndefined()
  })

  it('reads a real USDT transfer: its Transfer log, the registry contract, the exact amount', () => {
    const block = parsed(blockAround(69316562, 1738601505000, [usdtTransferTransaction]), [usdtTransferInfo])
    expect(block).toEqual({
      height: 69316562,
      hash: expect.stringMatching(/^000000000421afd2/),
      parentHash: expect.stringMatching(/^000000000421afd1/),
      time: '2025-02-03T16:51:45.000Z',
      transfers: [
        {
          txHash: '0130dfde9281a48378109039ef512229d5359fbee2a8adbb17ad73aebc67ea99',
          index: 0,
          from: 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre',
          to: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx',
          asset: { kind: 'token', contract: USDT },
          amountUnits: '41677389',
          success: true,
          // raw_data.expiration
          expiresAt: '2025-02-03T17:02:42.000Z',
        },
      ],
    })
  })

  it('reads a real TRX TransferContract, and its success from ret[0].contractRet', () => {
    const block = blockAround(69316621, 1738601682000, [trxTransferTransaction])
    expect(parsed(block, [trxTransferInfo]).transfers).toEqual([
      {
        txHash: '5144c4f5a52a08e57dfdf550b4f925c396e68c59a80339cea69497bee116437f',
        index: 0,
        from: 'TD3UjWy82fFre6VEqEVpK2J2HKm3NewYE3',
        to: 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre',
        asset: { kind: 'native' },
        amountUnits: '1',
        success: true,
        expiresAt: '2025-02-03T16:55:36.000Z',
      },
    ])
    // a TRX-only block needs no receipts
    expect(needsTransactionInfos(readTronBlock(block, 'trx') as TronBlockBody)).toBe(false)
    const failed = { ...trxTransferTransaction, ret: [{ contractRet: 'REVERT' }] }
    expect(parsed(blockAround(69316621, 1738601682000, [failed])).transfers[0]?.success).toBe(false)
  })

  it('reads a TRX amount above 2^53 exactly when the answer was parsed with parseExactJson', () => {
    const text = JSON.stringify(blockAround(5, 1738601682000, [trxTransferTransaction])).replace(
      '"amount":1,',
      '"amount":12345678901234567,',
    )
    expect(text).toContain('"amount":12345678901234567,')
    expect(parsed(parseExactJson(text) as object).transfers[0]?.amountUnits).toBe('12345678901234567')
  })

  it('ignores a real TRC10 TransferAssetContract', () => {
    expect(parsed(blockAround(69316644, 1738601751000, [trc10TransferTransaction])).transfers).toEqual([])
  })

  it('reports the real OUT_OF_ENERGY USDT call as failed, decoded from its calldata', () => {
    const block = parsed(blockAround(66860010, 1731229605000, [outOfEnergyTransaction]), [outOfEnergyInfo])
    expect(block.transfers).toEqual([
      {
        txHash: 'e63a324a43aebfe41273db4f7fdfe325b2257b4f5711595a5fc0f8a75cf1b481',
        index: 0,
        from: 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre',
        to: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx',
        asset: { kind: 'token', contract: USDT },
        amountUnits: '2500000',
        success: false,
        expiresAt: '2024-11-10T09:07:42.000Z',
      },
    ])
  })

  it('decodes a failed call whose recipient word carries 41 inside (the real 0130dfde calldata) as REVERT', () => {
    const reverted = { ...usdtTransferTransaction, ret: [{ contractRet: 'REVERT' }] }
    const info = {
      ...outOfEnergyInfo,
      id: usdtTransferTransaction.txID,
      blockNumber: 69316562,
      receipt: { ...outOfEnergyInfo.receipt, result: 'REVERT' },
    }
    expect(parsed(blockAround(69316562, 1738601505000, [reverted]), [info]).transfers).toEqual([
      expect.objectContaining({
        to: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx',
        amountUnits: '41677389',
        success: false,
      }),
    ])
  })

  it('ignores the counterfeit USDT contract, in a log and in a failed call', () => {
    const counterfeitLog = { ...usdtTransferInfo.log[0], address: COUNTERFEIT_USDT_LOG_ADDRESS }
    const counterfeit = { ...usdtTransferInfo, log: [counterfeitLog] }
    const block = blockAround(69316562, 1738601505000, [usdtTransferTransaction])
    expect(parsed(block, [counterfeit]).transfers).toEqual([])

    const value = usdtTransferTransaction.raw_data.contract[0]?.parameter.value
    const call = {
      ...outOfEnergyTransaction,
      raw_data: {
        ...outOfEnergyTransaction.raw_data,
        contract: [
          {
            ...outOfEnergyTransaction.raw_data.contract[0],
            parameter: { value: { ...value, contract_address: `41${COUNTERFEIT_USDT_LOG_ADDRESS}` } },
          },
        ],
      },
    }
    expect(parsed(blockAround(66860010, 1731229605000, [call]), [outOfEnergyInfo]).transfers).toEqual([])
  })

  it('reads the registry Transfer logs of a multi-log receipt at their log positions', () => {
    // ASSEMBLED from real logs: USDT to TXVj38D1..., a counterfeit's Transfer, a non-Transfer event, USDT to TCB8H6cK...
    const counterfeitLog = { ...usdtTransferInfo.log[0], address: COUNTERFEIT_USDT_LOG_ADDRESS }
    const info = {
      ...usdtTransferInfo,
      log: [usdtTransferInfo.log[0], counterfeitLog, nonTransferLog, usdtTransferLogToTcb8],
    }
    const block = blockAround(69316562, 1738601505000, [usdtTransferTransaction])
    expect(
      parsed(block, [info]).transfers.map(({ index, to, amountUnits }) => ({ index, to, amountUnits })),
    ).toEqual([
      { index: 0, to: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx', amountUnits: '41677389' },
      { index: 3, to: 'TCB8H6cKtfLZJyt3tXkbN1a8Nxrh2x14RB', amountUnits: '1000' },
    ])
  })

  it('ignores mainnet USDT on TRON_NILE, whose USDT is another contract', () => {
    const block = blockAround(69316562, 1738601505000, [usdtTransferTransaction])
    const nileTokens = tronTokenContracts(defaultAssetRegistry, 'TRON_NILE')
    expect(parsed(block, [usdtTransferInfo], nileTokens).transfers).toEqual([])
  })

  it('keeps the block order of transactions of several kinds', () => {
    const block = blockAround(69316562, 1738601505000, [
      trxTransferTransaction,
      usdtTransferTransaction,
      trc10TransferTransaction,
      outOfEnergyTransaction,
    ])
    const infos = [
      usdtTransferInfo,
      { ...outOfEnergyInfo, blockNumber: 69316562 },
      { ...trxTransferInfo, blockNumber: 69316562 },
    ]
    expect(
      parsed(block, infos).transfers.map((transfer) => [transfer.txHash.slice(0, 8), transfer.success]),
    ).toEqual([
      ['5144c4f5', true],
      ['0130dfde', true],
      ['e63a324a', false],
    ])
  })
})

describe('answers that cannot be used', () => {
  const block = blockAround(69316562, 1738601505000, [usdtTransferTransaction])

  it('asks to read again when a smart contract call has no receipt at the block height (a fork switch)', () => {
    expect(rpcErrorOf(() => parsed(block, [])).failure).toBe('unavailable')
    const elsewhere = { ...usdtTransferInfo, blockNumber: 69316563 }
    expect(rpcErrorOf(() => parsed(block, [elsewhere])).failure).toBe('unavailable')
  })

  it.each([
    ['java-tron Error body', { Error: 'class java.lang.NumberFormatException : For input string: "x"' }],
    ['a block without blockID', { ...nileBlock, blockID: undefined }],
    [
      'a block number that is not an integer',
      { ...nileBlock, block_header: { raw_data: { ...nileBlock.block_header.raw_data, number: '1' } } },
    ],
    ['an HTML page', '<html>502 Bad Gateway</html>'],
    ['transactions that are not a list', { ...nileBlock, transactions: {} }],
  ])('rejects %s as bad-response', (_case, answer) => {
    const error = rpcErrorOf(() => readTronBlock(answer, 'TRON wallet/getnowblock'))
    expect(error.failure).toBe('bad-response')
    expect(error.transient).toBe(false)
  })

  it('rejects receipts that are not TransactionInfo, and reads java-tron {} as none', () => {
    expect(readTransactionInfos({}, 'infos').size).toBe(0)
    expect(rpcErrorOf(() => readTransactionInfos({ Error: 'boom' }, 'infos')).failure).toBe('bad-response')
    expect(rpcErrorOf(() => readTransactionInfos([{ ...usdtTransferInfo, log: 'x' }], 'infos')).failure).toBe(
      'bad-response',
    )
  })
})

describe('parseExactJson and parseRetryAfter', () => {
  it('keeps integers above 2^53 as decimal text and everything else as JSON.parse does', () => {
    expect(parseExactJson('{"a":9007199254740993,"b":12,"c":1.5,"d":"x"}')).toEqual({
      a: '9007199254740993',
      b: 12,
      c: 1.5,
      d: 'x',
    })
    expect(parseExactJson('<html>')).toBe('<html>')
    expect(parseExactJson('')).toBe('')
  })

  it('reads Retry-After in seconds or as an HTTP date', () => {
    const now = Date.parse('2025-02-03T16:51:45.000Z')
    expect(parseRetryAfter('7', now)).toBe(7000)
    expect(parseRetryAfter('Mon, 03 Feb 2025 16:52:15 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('Mon, 03 Feb 2025 16:50:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter(undefined, now)).toBeUndefined()
  })
})
