// Customers' confirmed deposits in the operator's balances (docs/api.md, "Balances and sweeps";
// docs/treasury.md, "Customers' deposit addresses in a plan"): after the payments, a row each with
// the address's wallet and derivation path, page after page; the totals count them. On the SQLite
// read models standalone uses (the MongoDB ones pass the same read model contract).

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultAssetRegistry } from '@chainpay/domain'
import type { DepositRecord } from '@chainpay/ports'
import { sampleDepositRecord } from '@chainpay/ports/testing'
import {
  createSqliteDepositAddressReadModel,
  createSqliteDepositReadModel,
  createSqlitePaymentReadModel,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type BalanceAdminDeps, balancesPage, balanceTotals } from './balances.js'

// deposit ids as depositIdOf makes them: 32 hex digits
const [D1, D2, D3, D4] = ['1', '2', '3', '4'].map((digit) => digit.repeat(32)) as [
  string,
  string,
  string,
  string,
]

let dir: string
let db: ReturnType<typeof openSqliteDatabase>
let deps: BalanceAdminDeps

const swept = (record: DepositRecord, amountUnits: string): DepositRecord => ({
  ...record,
  revision: record.revision + 1,
  state: {
    ...record.state,
    sweeps: [
      {
        txHash: `sweep-${record.depositId}`,
        currency: 'USDT',
        decimals: 6,
        amountUnits,
        feeUnits: '0',
        feeCurrency: 'TRX',
        feeDecimals: 6,
        treasury: 'TTreasury',
        sweptAt: '2030-01-15T13:00:00.000Z',
      },
    ],
  },
})

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chainpay-deposit-balances-'))
  db = openSqliteDatabase(join(dir, 'chainpay.sqlite'))
  const deposits = createSqliteDepositReadModel(db)
  const addresses = createSqliteDepositAddressReadModel(db)
  deps = {
    commands: { recordSweep: () => Promise.reject(new Error('not in this test')) },
    readModel: createSqlitePaymentReadModel(db),
    registry: defaultAssetRegistry,
    deposits: {
      commands: { recordDepositSweep: () => Promise.reject(new Error('not in this test')) },
      readModel: deposits,
      addresses,
    },
  }
  // two customers' addresses, one of a merchant's own wallet
  for (const [address, walletId, j] of [
    ['TDeposit1', 'operator', 0],
    ['TDeposit2', 'w_merchant', 1],
  ] as const) {
    await addresses.save({
      merchantId: 'mer_a',
      merchantUserId: `user-${j}`,
      chain: 'TRON',
      address,
      derivationPath: `m/44'/195'/0'/2/${j}`,
      walletId,
      createdAt: '2030-01-15T11:00:00.000Z',
    })
  }
  const on = (record: DepositRecord, address: string): DepositRecord => ({
    ...record,
    state: { ...record.state, detected: { ...record.state.detected, address } },
  })
  await deposits.save(swept(on(sampleDepositRecord(D1, 2, { status: 'confirmed' }), 'TDeposit1'), '4000000'))
  await deposits.save(on(sampleDepositRecord(D2, 2, { status: 'confirmed' }), 'TDeposit1'))
  await deposits.save(on(sampleDepositRecord(D3, 0), 'TDeposit1'))
  await deposits.save(on(sampleDepositRecord(D4, 2, { status: 'confirmed' }), 'TDeposit2'))
})

afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe("customers' deposits in the operator's balances", () => {
  it('lists each confirmed deposit after the payments, page after page, with its address’s wallet and path', async () => {
    const first = await balancesPage(deps, { limit: 2, onChain: false })
    expect(first.data).toEqual([
      expect.objectContaining({
        paymentId: null,
        depositId: D1,
        walletId: 'operator',
        address: 'TDeposit1',
        derivationPath: "m/44'/195'/0'/2/0",
        currency: 'USDT',
        tokenStandard: 'TRC20',
        received: '10',
        swept: '4',
      }),
      expect.objectContaining({ depositId: D2, received: '10', swept: '0' }),
    ])
    expect(first.nextCursor).not.toBeNull()
    const second = await balancesPage(deps, { limit: 2, onChain: false, cursor: first.nextCursor as string })
    // the deposit still counting (D3) is not offered
    expect(second.data.map((row) => [row.depositId, row.walletId, row.derivationPath])).toEqual([
      [D4, 'w_merchant', "m/44'/195'/0'/2/1"],
    ])
    expect(second.nextCursor).toBeNull()
    // by the address's wallet, and by network
    const merchantWallet = await balancesPage(deps, { limit: 10, onChain: false, walletId: 'w_merchant' })
    expect(merchantWallet.data.map((row) => row.depositId)).toEqual([D4])
    expect((await balancesPage(deps, { limit: 10, onChain: false, network: 'SOLANA' })).data).toEqual([])
  })

  it('refuses a deposit cursor altered or made up', async () => {
    const { nextCursor } = await balancesPage(deps, { limit: 1, onChain: false })
    const decoded = Buffer.from(nextCursor as string, 'base64url').toString('utf8')
    expect(decoded).toBe(`deposit:${D1}`)
    for (const text of ['deposit:D1', 'deposit:xyz', 'deposits:', `deposit:${'a'.repeat(31)}`]) {
      await expect(
        balancesPage(deps, {
          limit: 1,
          onChain: false,
          cursor: Buffer.from(text, 'utf8').toString('base64url'),
        }),
      ).rejects.toThrow('cursor: not a nextCursor of this API')
    }
  })

  it('counts the confirmed deposits in the totals, each address once', async () => {
    expect(await balanceTotals(deps, {})).toEqual([
      {
        merchantId: 'mer_a',
        network: 'TRON',
        currency: 'USDT',
        received: '30',
        swept: '4',
        unswept: '26',
        addresses: 2,
      },
    ])
  })
})
