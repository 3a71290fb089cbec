// A merchant's customer's deposit address (docs/api.md, "Deposit addresses"; decisions.md section
// 22): one per (merchant, merchantUserId, chain family), created once by DepositAddressCreated, which
// records the address and the derivation path it was derived at (a branch of its own, that no
// payment address takes: docs/treasury.md, "Derivation paths"). Its stream is named by the three,
// so concurrent creates race for one stream and the event store's "no stream" lets one win.

import { createHash } from 'node:crypto'
import { type AssetRegistry, type Chain, findNetwork } from './assets.js'
import { DomainError } from './errors.js'

/** the merchant's name for its customer: 1..128 characters (decisions.md section 22) */
export const MERCHANT_USER_ID_MAX_LENGTH = 128

export interface DepositAddressCreatedData {
  merchantId: string
  merchantUserId: string
  /** the chain family: every network of the chain shares the address (decisions.md section 18) */
  chain: Chain
  /** the chain-level address (TRON's, a Solana owner's) */
  address: string
  derivationPath: string
  /** 'operator' or the merchant wallet it was derived from */
  walletId: string
  /** the family's deposit index the path ends with */
  index: number
  createdAt: string
}

export type DepositAddressEvent = { type: 'DepositAddressCreated'; data: DepositAddressCreatedData }

export type DepositAddressState =
  | { status: 'none' }
  | { status: 'created'; created: DepositAddressCreatedData }

export const initialDepositAddressState: DepositAddressState = { status: 'none' }

export type DepositAddressCommand = { type: 'CreateDepositAddress'; data: DepositAddressCreatedData }

export function evolveDepositAddress(
  state: DepositAddressState,
  event: DepositAddressEvent,
): DepositAddressState {
  switch (event.type) {
    case 'DepositAddressCreated':
      return state.status === 'none' ? { status: 'created', created: event.data } : state
    default: {
      const never: never = event.type
      throw new Error(`unknown deposit address event ${String(never)}`)
    }
  }
}

/** a second create of an existing address decides nothing: the first one's address stays */
export function decideDepositAddress(
  command: DepositAddressCommand,
  state: DepositAddressState,
): DepositAddressEvent[] {
  switch (command.type) {
    case 'CreateDepositAddress':
      return state.status === 'none' ? [{ type: 'DepositAddressCreated', data: command.data }] : []
    default: {
      const never: never = command.type
      throw new Error(`unknown deposit address command ${String(never)}`)
    }
  }
}

export interface DepositAddressRequest {
  merchantUserId: string
  network: string
}

/** a valid merchantUserId, or VALIDATION_ERROR naming the field */
export function validateMerchantUserId(value: unknown): string {
  if (typeof value !== 'string' || value.length < 1 || value.length > MERCHANT_USER_ID_MAX_LENGTH) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `merchantUserId must be a string of 1 to ${MERCHANT_USER_ID_MAX_LENGTH} characters`,
    )
  }
  return value
}

/**
 * `POST /deposit-addresses`' body checked: `{"merchantUserId","network"}`, nothing else; the network
 * one the registry serves (UNSUPPORTED_ASSET names the served ones otherwise)
 */
export function validateDepositAddressRequest(
  body: unknown,
  registry: AssetRegistry,
): DepositAddressRequest & { chain: Chain } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('VALIDATION_ERROR', 'the body must be a JSON object')
  }
  const record = body as Record<string, unknown>
  for (const key of Object.keys(record)) {
    if (key !== 'merchantUserId' && key !== 'network') {
      throw new DomainError('VALIDATION_ERROR', `unknown field ${JSON.stringify(key)}`)
    }
  }
  const merchantUserId = validateMerchantUserId(record.merchantUserId)
  const { network } = record
  if (typeof network !== 'string' || network.length === 0) {
    throw new DomainError('VALIDATION_ERROR', 'network must be a network name, e.g. TRON or SOLANA')
  }
  const definition = findNetwork(registry, network)
  if (definition === undefined) {
    const served = registry.networks.map((candidate) => candidate.network).join(', ')
    throw new DomainError(
      'UNSUPPORTED_ASSET',
      `unsupported network ${JSON.stringify(network)}; served: ${served}`,
    )
  }
  return { merchantUserId, network, chain: definition.chain }
}

/**
 * `deposit-address-<sha256 hex of merchant, user and chain>`: any text a merchant names its users
 * by makes a valid stream id, and one (merchant, user, family) one stream
 */
export function toDepositAddressStreamId(merchantId: string, merchantUserId: string, chain: Chain): string {
  // merchant ids and chain names hold no newline: no two triples hash the same text
  const digest = createHash('sha256')
    .update(`${merchantId}\n${chain}\n${merchantUserId}`, 'utf8')
    .digest('hex')
  return `${DEPOSIT_ADDRESS_STREAM_PREFIX}${digest}`
}

export const DEPOSIT_ADDRESS_STREAM_PREFIX = 'deposit-address-'
