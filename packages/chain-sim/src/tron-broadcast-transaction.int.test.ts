// The simulated TRON node takes signed transactions as java-tron does (docs/chains.md, "The
// simulator as a node for sweeping", TRON): the real tronweb builds, signs with keys derived from a
// mnemonic and broadcasts over HTTP; balances, bandwidth, energy and refusals are read back through
// the node's own routes.
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { deriveTronAddress, walletFromMnemonic } from '@chainpay/wallet'
import { TronWeb } from 'tronweb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type SimulatorNode, startSimulatorNode, testNetworks } from './testing/simulator-node.js'

const MNEMONIC =
  'legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth title'
const XPUB = walletFromMnemonic(MNEMONIC).tronAccountXpub
const USDT = resolveAsset(defaultAssetRegistry, { network: 'TRON', currency: 'USDT' }).contract as string
const TRX = 1_000_000

// biome-ignore lint/suspicious/noExplicitAny: node answers are read loosely and checked with expect
type Loose = any

/** the key at m/44'/195'/0'/0/i, checked against the address packages/wallet derives there */
function account(index: number): { address: string; privateKey: string } {
  const { address, privateKey } = TronWeb.fromMnemonic(MNEMONIC, `m/44'/195'/0'/0/${index}`)
  expect(address).toBe(deriveTronAddress(XPUB, index).address)
  return { address, privateKey: privateKey.replace(/^0x/, '') }
}

const treasury = account(0)
const payment = account(1)

let node: SimulatorNode
let tronWeb: TronWeb

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('TRON') })
  tronWeb = new TronWeb({ fullHost: node.tronUrl('TRON') })
  await fund(treasury.address, '10000', 'TRX')
})

afterEach(() => node.close())

/** money from outside: the simulator's dev transfer route, then a block */
async function fund(to: string, amount: string, currency: 'TRX' | 'USDT'): Promise<void> {
  const response = await fetch(`${node.url}/dev/chains/TRON/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to, amount, currency }),
  })
  expect(response.status).toBeLessThan(300)
  await node.simulator.mineBlocks('TRON', 1)
}

async function send(transaction: Loose, privateKey: string): Promise<Loose> {
  return tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(transaction, privateKey))
}

async function trxBalance(address: string): Promise<number> {
  return Number((await tronWeb.trx.getAccount(address)).balance ?? 0)
}

async function usdtBalance(address: string): Promise<bigint> {
  const call = await tronWeb.transactionBuilder.triggerConstantContract(
    USDT,
    'balanceOf(address)',
    {},
    [{ type: 'address', value: address }],
    address,
  )
  return BigInt(`0x${call.constant_result?.[0]}`)
}

/** the receipt, once a block holds the transaction */
async function receipt(txid: string): Promise<Loose> {
  await node.simulator.mineBlocks('TRON', 1)
  return tronWeb.trx.getUnconfirmedTransactionInfo(txid)
}

/** the node's answer, checked to be an acceptance (a refusal shows its text) */
function accepted(answer: Loose): Loose {
  expect(answer.message === undefined ? 'accepted' : `${answer.code}: ${text(answer)}`).toBe('accepted')
  expect(answer).toMatchObject({ result: true, txid: expect.stringMatching(/^[0-9a-f]{64}$/) })
  return answer
}

function text(answer: Loose): string {
  return Buffer.from(answer.message, 'hex').toString()
}

describe('TRON signed transactions: TRX', () => {
  it('activates a new address with a TRX transfer: 1 TRX account fee and 0.1 TRX for bandwidth', async () => {
    const parameters = new Map((await tronWeb.trx.getChainParameters()).map(({ key, value }) => [key, value]))
    expect(Object.fromEntries(parameters)).toMatchObject({
      getTransactionFee: 1000,
      getEnergyFee: 100,
      getCreateAccountFee: 100_000,
      getCreateNewAccountFeeInSystemContract: 1_000_000,
      getFreeNetLimit: 600,
    })
    expect(await tronWeb.trx.getAccount(payment.address)).toEqual({})
    const answer = await send(
      await tronWeb.transactionBuilder.sendTrx(payment.address, 5 * TRX, treasury.address),
      treasury.privateKey,
    )
    accepted(answer)

    const info = await receipt(answer.txid)
    expect(info).toMatchObject({ id: answer.txid, fee: 1_100_000, blockNumber: expect.any(Number) })
    expect(await trxBalance(payment.address)).toBe(5 * TRX)
    expect(await trxBalance(treasury.address)).toBe(10_000 * TRX - 5 * TRX - 1_100_000)
    const block = await tronWeb.trx.getBlock(info.blockNumber)
    expect(block.transactions?.[0]).toMatchObject({
      txID: answer.txid,
      ret: [{ contractRet: 'SUCCESS' }],
      raw_data: { contract: [{ type: 'TransferContract' }] },
    })
    expect((await tronWeb.trx.getTransaction(answer.txid)).txID).toBe(answer.txid)
  })

  it('pays a transfer between activated accounts from free bandwidth, then burns 1,000 sun a byte', async () => {
    await fund(payment.address, '1', 'TRX')
    const sends: Loose[] = []
    for (let round = 0; round < 3; round += 1) {
      const answer = await send(
        await tronWeb.transactionBuilder.sendTrx(treasury.address, 1000 + round, payment.address),
        payment.privateKey,
      )
      accepted(answer)
      sends.push(await receipt(answer.txid))
    }
    const [first, second, third] = sends
    expect(first).not.toHaveProperty('fee')
    expect(first.receipt.net_usage).toBeGreaterThan(200)
    expect(second.receipt.net_usage).toBe(first.receipt.net_usage)
    // 600 free bytes a day: the third transfer burns its bytes
    expect(third.receipt).not.toHaveProperty('net_usage')
    expect(third.fee).toBe(third.receipt.net_fee)
    expect(third.fee).toBe(first.receipt.net_usage * 1000)
    expect(await trxBalance(payment.address)).toBe(TRX - 3003 - third.fee)
    const resources = await tronWeb.trx.getAccountResources(payment.address)
    expect(resources).toMatchObject({ freeNetUsed: 2 * first.receipt.net_usage, freeNetLimit: 600 })
  })
})

describe('TRON signed transactions: energy', () => {
  it('freezes and delegates energy; a USDT-only address sweeps with it and free bandwidth; undelegates', async () => {
    await fund(treasury.address, '1', 'USDT')
    await fund(payment.address, '250', 'USDT')
    // activation: the smallest TRX transfer
    const activation = await send(
      await tronWeb.transactionBuilder.sendTrx(payment.address, 1, treasury.address),
      treasury.privateKey,
    )
    accepted(activation)

    const freeze = await send(
      await tronWeb.transactionBuilder.freezeBalanceV2(8000 * TRX, 'ENERGY', treasury.address),
      treasury.privateKey,
    )
    accepted(freeze)
    expect(await tronWeb.trx.getCanDelegatedMaxSize(treasury.address, 'ENERGY')).toEqual({
      max_size: 8000 * TRX,
    })
    const delegate = await send(
      await tronWeb.transactionBuilder.delegateResource(
        7000 * TRX,
        payment.address,
        'ENERGY',
        treasury.address,
      ),
      treasury.privateKey,
    )
    accepted(delegate)
    await receipt(delegate.txid)
    expect(await tronWeb.trx.getAccountResources(payment.address)).toMatchObject({ EnergyLimit: 70_000 })
    expect(await tronWeb.trx.getCanDelegatedMaxSize(treasury.address, 'ENERGY')).toEqual({
      max_size: 1000 * TRX,
    })

    const estimate = await tronWeb.transactionBuilder.triggerConstantContract(
      USDT,
      'transfer(address,uint256)',
      {},
      [
        { type: 'address', value: treasury.address },
        { type: 'uint256', value: '250000000' },
      ],
      payment.address,
    )
    expect(estimate.energy_used).toBe(64_285)
    const { transaction } = await tronWeb.transactionBuilder.triggerSmartContract(
      USDT,
      'transfer(address,uint256)',
      { feeLimit: 10 * TRX },
      [
        { type: 'address', value: treasury.address },
        { type: 'uint256', value: '250000000' },
      ],
      payment.address,
    )
    const sweep = await send(transaction, payment.privateKey)
    accepted(sweep)
    const info = await receipt(sweep.txid)
    expect(info).not.toHaveProperty('fee')
    expect(info.receipt).toMatchObject({
      energy_usage: 64_285,
      energy_usage_total: 64_285,
      result: 'SUCCESS',
    })
    expect(info.receipt).not.toHaveProperty('energy_fee')
    expect(info.log).toHaveLength(1)
    expect(await trxBalance(payment.address)).toBe(1)
    expect(await usdtBalance(payment.address)).toBe(0n)
    expect(await usdtBalance(treasury.address)).toBe(251_000_000n)
    expect(await node.simulator.balanceOf('TRON', payment.address, null)).toBe(1n)
    expect(await node.simulator.balanceOf('TRON', treasury.address, USDT)).toBe(251_000_000n)
    // what the chain-indexer reads: the block's receipts
    const receipts = await (
      await fetch(`${node.tronUrl('TRON')}/wallet/gettransactioninfobyblocknum`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ num: info.blockNumber }),
      })
    ).json()
    expect(receipts).toEqual([info])

    const undelegate = await send(
      await tronWeb.transactionBuilder.undelegateResource(
        7000 * TRX,
        payment.address,
        'ENERGY',
        treasury.address,
      ),
      treasury.privateKey,
    )
    accepted(undelegate)
    expect(await tronWeb.trx.getCanDelegatedMaxSize(treasury.address, 'ENERGY')).toEqual({
      max_size: 8000 * TRX,
    })
    expect(await tronWeb.trx.getAccountResources(payment.address)).not.toHaveProperty('EnergyLimit')
    // the treasury's free bandwidth went to freeze and delegate: undelegating burns its bytes
    const undelegated = await receipt(undelegate.txid)
    expect(undelegated.fee).toBe(undelegated.receipt.net_fee)
    expect(await trxBalance(treasury.address)).toBe(
      10_000 * TRX - 1 - 1_100_000 - 8000 * TRX - undelegated.fee,
    )
  })

  it('fails a TRC20 transfer whose fee_limit buys too little energy: OUT_OF_ENERGY, charged, nothing moved', async () => {
    await fund(payment.address, '5', 'USDT')
    await fund(payment.address, '20', 'TRX')
    const { transaction } = await tronWeb.transactionBuilder.triggerSmartContract(
      USDT,
      'transfer(address,uint256)',
      { feeLimit: 2 * TRX },
      [
        { type: 'address', value: treasury.address },
        { type: 'uint256', value: '5000000' },
      ],
      payment.address,
    )
    const answer = await send(transaction, payment.privateKey)
    accepted(answer)
    const info = await receipt(answer.txid)
    expect(info).toMatchObject({
      result: 'FAILED',
      fee: 2 * TRX,
      receipt: { result: 'OUT_OF_ENERGY', energy_fee: 2 * TRX },
    })
    expect(await usdtBalance(payment.address)).toBe(5_000_000n)
    expect(await trxBalance(payment.address)).toBe(18 * TRX)
  })
  it('fails a TRC20 transfer of more than the owner holds: REVERT, its energy burned, nothing moved', async () => {
    await fund(payment.address, '5', 'USDT')
    await fund(payment.address, '20', 'TRX')
    const { transaction } = await tronWeb.transactionBuilder.triggerSmartContract(
      USDT,
      'transfer(address,uint256)',
      { feeLimit: 20 * TRX },
      [
        { type: 'address', value: treasury.address },
        { type: 'uint256', value: '6000000' },
      ],
      payment.address,
    )
    const info = await receipt(accepted(await send(transaction, payment.privateKey)).txid)
    // the treasury holds no USDT: 130,285 energy at 100 sun
    expect(info).toMatchObject({
      result: 'FAILED',
      fee: 13_028_500,
      receipt: { result: 'REVERT', energy_fee: 13_028_500, energy_usage_total: 130_285 },
    })
    expect(Buffer.from(info.resMessage, 'hex').toString()).toBe('REVERT opcode executed')
    expect(await usdtBalance(payment.address)).toBe(5_000_000n)
    expect(await usdtBalance(treasury.address)).toBe(0n)
    expect(await trxBalance(payment.address)).toBe(20 * TRX - 13_028_500)
  })
})

describe('TRON signed transactions: refusals as java-tron answers them', () => {
  it('refuses a bad signature, an unactivated sender, an insufficient balance, no bandwidth and no TRX', async () => {
    await fund(payment.address, '0.00001', 'TRX')
    const stranger = account(2)

    const signed = await tronWeb.trx.sign(
      await tronWeb.transactionBuilder.sendTrx(payment.address, 1, treasury.address),
      treasury.privateKey,
    )
    const other = await tronWeb.trx.sign(
      await tronWeb.transactionBuilder.sendTrx(payment.address, 2, treasury.address),
      treasury.privateKey,
    )
    const badSignature = await tronWeb.trx.sendRawTransaction({ ...signed, signature: other.signature })
    expect(badSignature).toMatchObject({ code: 'SIGERROR' })
    expect(badSignature).not.toHaveProperty('result')

    // the JSON says another amount than the signed bytes
    const altered = { ...signed, raw_data: structuredClone(signed.raw_data) } as Loose
    altered.raw_data.contract[0].parameter.value.amount = 1000
    const alteredAnswer = await tronWeb.trx.sendRawTransaction(altered)
    expect(alteredAnswer.code).toBe('SIGERROR')
    expect(text(alteredAnswer)).toBe('raw_data does not match raw_data_hex')

    const unactivated = await send(
      await tronWeb.transactionBuilder.sendTrx(payment.address, 1, stranger.address),
      stranger.privateKey,
    )
    expect(unactivated.code).toBe('CONTRACT_VALIDATE_ERROR')
    expect(text(unactivated)).toBe(`account [${stranger.address}] does not exist`)

    const tooMuch = await send(
      await tronWeb.transactionBuilder.sendTrx(treasury.address, 11, payment.address),
      payment.privateKey,
    )
    expect(tooMuch.code).toBe('CONTRACT_VALIDATE_ERROR')
    expect(text(tooMuch)).toBe('Validate TransferContract error, balance is not sufficient.')

    // two transfers use the 600 free bytes; the third would burn more than the 8 sun left
    for (const sun of [1, 2]) {
      accepted(
        await send(
          await tronWeb.transactionBuilder.sendTrx(treasury.address, sun, payment.address),
          payment.privateKey,
        ),
      )
    }
    const noBandwidth = await send(
      await tronWeb.transactionBuilder.sendTrx(treasury.address, 3, payment.address),
      payment.privateKey,
    )
    expect(noBandwidth.code).toBe('BANDWIDTH_ERROR')
    expect(text(noBandwidth)).toBe('Account resource insufficient error.')
    expect(await trxBalance(payment.address)).toBe(7)
  })

  it('refuses an expired transaction, a foreign reference block and a replay', async () => {
    const head = await tronWeb.trx.getCurrentBlock()
    const header = {
      ref_block_bytes: head.block_header.raw_data.number.toString(16).slice(-4).padStart(4, '0'),
      ref_block_hash: head.blockID.slice(16, 32),
      expiration: head.block_header.raw_data.timestamp,
      timestamp: head.block_header.raw_data.timestamp - 60_000,
    }
    const expired = await send(
      await tronWeb.transactionBuilder.sendTrx(payment.address, TRX, treasury.address, {
        blockHeader: header,
      }),
      treasury.privateKey,
    )
    expect(expired.code).toBe('TRANSACTION_EXPIRATION_ERROR')

    const foreign = await send(
      await tronWeb.transactionBuilder.sendTrx(payment.address, TRX, treasury.address, {
        blockHeader: { ...header, expiration: header.expiration + 60_000, ref_block_hash: 'ab'.repeat(8) },
      }),
      treasury.privateKey,
    )
    expect(foreign.code).toBe('TAPOS_ERROR')

    const signed = await tronWeb.trx.sign(
      await tronWeb.transactionBuilder.sendTrx(payment.address, TRX, treasury.address),
      treasury.privateKey,
    )
    expect((await tronWeb.trx.sendRawTransaction(signed)).result).toBe(true)
    // a solidity node takes no transaction
    const solidity = await fetch(`${node.tronUrl('TRON')}/walletsolidity/broadcasttransaction`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signed),
    })
    expect(solidity.status).toBe(404)
    const replay = await tronWeb.trx.sendRawTransaction(signed)
    expect(replay.code).toBe('DUP_TRANSACTION_ERROR')
    await node.simulator.mineBlocks('TRON', 1)
    expect((await tronWeb.trx.sendRawTransaction(signed)).code).toBe('DUP_TRANSACTION_ERROR')
    expect(await trxBalance(payment.address)).toBe(TRX)
  })

  it('takes the same transaction as broadcasthex', async () => {
    const signed = await tronWeb.trx.sign(
      await tronWeb.transactionBuilder.sendTrx(payment.address, TRX, treasury.address),
      treasury.privateKey,
    )
    // protocol.Transaction with its signature, encoded by tronweb's protobuf classes
    const pb: Loose = tronWeb.utils.transaction.txJsonToPb(signed)
    pb.addSignature(Buffer.from(signed.signature?.[0] as string, 'hex'))
    const answer = await tronWeb.trx.sendHexTransaction(Buffer.from(pb.serializeBinary()).toString('hex'))
    expect(accepted(answer).txid).toBe(signed.txID)
  })
})
