import { describe, expect, it } from 'vitest'
import { defaultAssetRegistry } from './assets.js'
import {
  type DepositAddressCreatedData,
  type DepositAddressEvent,
  decideDepositAddress,
  evolveDepositAddress,
  initialDepositAddressState,
  toDepositAddressStreamId,
  validateDepositAddressRequest,
} from './deposit-address.js'
import { DomainError } from './errors.js'

const created: DepositAddressCreatedData = {
  merchantId: 'm_1',
  merchantUserId: 'user-42',
  chain: 'TRON',
  address: 'TXYZ',
  derivationPath: "m/44'/195'/0'/2/0",
  walletId: 'operator',
  index: 0,
  createdAt: '2026-11-28T10:00:00.000Z',
}

function given(...events: DepositAddressEvent[]) {
  return events.reduce(evolveDepositAddress, initialDepositAddressState)
}

describe('deposit address decider', () => {
  it('given no address, when created, then DepositAddressCreated records the address and its path', () => {
    expect(decideDepositAddress({ type: 'CreateDepositAddress', data: created }, given())).toEqual([
      { type: 'DepositAddressCreated', data: created },
    ])
  })

  it('given an address, when created again (another index), then nothing: the first address stays', () => {
    const state = given({ type: 'DepositAddressCreated', data: created })
    const again = { ...created, address: 'TOTHER', index: 1 }
    expect(decideDepositAddress({ type: 'CreateDepositAddress', data: again }, state)).toEqual([])
    expect(state).toEqual({ status: 'created', created })
  })
})

describe('deposit address request', () => {
  const registry = defaultAssetRegistry

  it('takes a user and a network, and gives its chain family', () => {
    expect(validateDepositAddressRequest({ merchantUserId: 'u', network: 'TRON_NILE' }, registry)).toEqual({
      merchantUserId: 'u',
      network: 'TRON_NILE',
      chain: 'TRON',
    })
  })

  it.each([
    [{ network: 'TRON' }, 'VALIDATION_ERROR', 'merchantUserId'],
    [{ merchantUserId: '', network: 'TRON' }, 'VALIDATION_ERROR', 'merchantUserId'],
    [{ merchantUserId: 'x'.repeat(129), network: 'TRON' }, 'VALIDATION_ERROR', 'merchantUserId'],
    [{ merchantUserId: 'u' }, 'VALIDATION_ERROR', 'network'],
    [{ merchantUserId: 'u', network: 'TRON', extra: 1 }, 'VALIDATION_ERROR', 'extra'],
    [{ merchantUserId: 'u', network: 'BITCOIN' }, 'UNSUPPORTED_ASSET', 'BITCOIN'],
    [[], 'VALIDATION_ERROR', 'object'],
  ])('refuses %j with %s naming %s', (body, code, named) => {
    const error = (() => {
      try {
        validateDepositAddressRequest(body, registry)
      } catch (caught) {
        return caught
      }
      return null
    })()
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).code).toBe(code)
    expect((error as DomainError).message).toContain(named)
  })

  it('names one stream per (merchant, user, family): mainnet and test network share it', () => {
    const tron = toDepositAddressStreamId('m_1', 'u', 'TRON')
    expect(tron).toMatch(/^deposit-address-[0-9a-f]{64}$/)
    expect(toDepositAddressStreamId('m_1', 'u', 'TRON')).toBe(tron)
    expect(toDepositAddressStreamId('m_1', 'u', 'SOLANA')).not.toBe(tron)
    expect(toDepositAddressStreamId('m_1', 'v', 'TRON')).not.toBe(tron)
    expect(toDepositAddressStreamId('m_2', 'u', 'TRON')).not.toBe(tron)
  })
})
