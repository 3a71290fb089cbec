import { DomainError, defaultAssetRegistry, toDepositAddressStreamId } from '@chainpay/domain'
import {
  createAddressDeriver,
  merchantWalletPublicParts,
  walletFromMnemonic,
  walletKeyIdOf,
} from '@chainpay/wallet'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDepositAddressHandler } from './deposit-address-handler.js'
import {
  openSqliteCommandSide,
  type SqliteCommandSide,
  TEST_MNEMONIC,
} from './testing/sqlite-command-side.js'

const OPERATOR = walletFromMnemonic(TEST_MNEMONIC)
const MERCHANT_WALLET = walletFromMnemonic(
  'legal winner thank year wave sausage worth useful legal winner thank yellow',
)

describe('deposit addresses on the command side (docs/api.md, "Deposit addresses")', () => {
  let side: SqliteCommandSide
  const handler = () => {
    const operatorParts = merchantWalletPublicParts(OPERATOR)
    return createDepositAddressHandler({
      eventStore: side.eventStore,
      merchants: side.merchants,
      allocator: side.allocator,
      operator: {
        deriveDepositAddress: createAddressDeriver(OPERATOR).deriveDepositAddress,
        keyIdOf: (chain) => walletKeyIdOf(operatorParts, chain),
      },
      merchantWallets: side.merchantWallets,
      registry: defaultAssetRegistry,
      clock: { now: () => new Date('2026-11-28T10:00:00.000Z') },
      logger: side.logger,
    })
  }

  beforeEach(async () => {
    side = openSqliteCommandSide()
    await side.addMerchant('mer_1')
    await side.addMerchant('mer_2')
  })
  afterEach(() => side.close())

  it('gives the same user the same address twice (201 then 200), another user another', async () => {
    const deposits = handler()
    const first = await deposits.ensureDepositAddress({
      merchantId: 'mer_1',
      request: { merchantUserId: 'alice', network: 'TRON' },
    })
    expect(first.outcome).toBe('created')
    expect(first.depositAddress).toMatchObject({
      merchantId: 'mer_1',
      merchantUserId: 'alice',
      chain: 'TRON',
      derivationPath: "m/44'/195'/0'/2/0",
      walletId: 'operator',
    })
    const again = await deposits.ensureDepositAddress({
      merchantId: 'mer_1',
      request: { merchantUserId: 'alice', network: 'TRON' },
    })
    expect(again).toEqual({ outcome: 'existing', depositAddress: first.depositAddress })
    // the test network of the family shares the address (decisions.md section 18)
    const nile = await deposits.ensureDepositAddress({
      merchantId: 'mer_1',
      request: { merchantUserId: 'alice', network: 'TRON_NILE' },
    })
    expect(nile.depositAddress.address).toBe(first.depositAddress.address)
    const bob = await deposits.ensureDepositAddress({
      merchantId: 'mer_1',
      request: { merchantUserId: 'bob', network: 'TRON' },
    })
    const otherMerchantsAlice = await deposits.ensureDepositAddress({
      merchantId: 'mer_2',
      request: { merchantUserId: 'alice', network: 'TRON' },
    })
    const addresses = [first, bob, otherMerchantsAlice].map((outcome) => outcome.depositAddress.address)
    expect(new Set(addresses).size).toBe(3)
    expect(bob.depositAddress.derivationPath).toBe("m/44'/195'/0'/2/1")
    // its own sequence: no payment index was taken
    expect(side.allocator.allocations.every((allocation) => allocation.keyId?.startsWith('deposits0'))).toBe(
      true,
    )
    const stored = await side.eventStore.readStream(toDepositAddressStreamId('mer_1', 'alice', 'TRON'))
    expect(stored.map((event) => event.type)).toEqual(['DepositAddressCreated'])
  })

  it('answers concurrent requests for one user with one address, recorded once', async () => {
    const deposits = handler()
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        deposits.ensureDepositAddress({
          merchantId: 'mer_1',
          request: { merchantUserId: 'carol', network: 'SOLANA' },
        }),
      ),
    )
    expect(new Set(outcomes.map((outcome) => outcome.depositAddress.address)).size).toBe(1)
    expect(outcomes.filter((outcome) => outcome.outcome === 'created')).toHaveLength(1)
    const stored = await side.eventStore.readStream(toDepositAddressStreamId('mer_1', 'carol', 'SOLANA'))
    expect(stored).toHaveLength(1)
    expect(outcomes[0]?.depositAddress.derivationPath).toMatch(/^m\/44'\/501'\/\d+'\/2'$/)
  })

  it("derives from the merchant's own wallet when it has one", async () => {
    await side.merchantWallets.set('mer_2', MERCHANT_WALLET)
    const outcome = await handler().ensureDepositAddress({
      merchantId: 'mer_2',
      request: { merchantUserId: 'dave', network: 'TRON' },
    })
    expect(outcome.depositAddress.walletId).not.toBe('operator')
    expect(outcome.depositAddress.address).toBe(
      createAddressDeriver(MERCHANT_WALLET).deriveDepositAddress('TRON', 0).address,
    )
  })

  it('refuses an unknown merchant, a bad user id and a network not served', async () => {
    const deposits = handler()
    const codeOf = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
      )
    expect(
      await codeOf(
        deposits.ensureDepositAddress({
          merchantId: 'mer_x',
          request: { merchantUserId: 'a', network: 'TRON' },
        }),
      ),
    ).toBe('NOT_FOUND')
    expect(
      await codeOf(
        deposits.ensureDepositAddress({
          merchantId: 'mer_1',
          request: { merchantUserId: 1, network: 'TRON' },
        }),
      ),
    ).toBe('VALIDATION_ERROR')
    expect(
      await codeOf(
        deposits.ensureDepositAddress({
          merchantId: 'mer_1',
          request: { merchantUserId: 'a', network: 'ETH' },
        }),
      ),
    ).toBe('UNSUPPORTED_ASSET')
  })
})
