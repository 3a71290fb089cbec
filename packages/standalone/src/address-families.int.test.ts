// Addresses are unique per chain family (docs/chains.md, "Addresses: one sequence per chain family"):
// TRON and TRON_NILE derive from one xpub, SOLANA and SOLANA_DEVNET from one seed, so a mainnet
// payment and a test network payment must never be given the same address. Otherwise a mainnet
// transfer to the test payment's address would be credited to the mainnet payment.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

let standalone: InProcessStandalone

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: { now: () => new Date() } })
})

afterAll(async () => {
  await standalone?.stop()
})

describe('receiving addresses across a mainnet and its test network', () => {
  it('gives a TRON and a TRON_NILE payment, and a SOLANA and a SOLANA_DEVNET one, different addresses', async () => {
    const client = merchantClientFor(standalone)
    const create = async (network: string, currency: string) => {
      const response = await client.createPayment({ amount: '1', currency, network } as never)
      expect(response.status).toBe(201)
      return response.body as PaymentBody
    }
    // each network's first payment: with one counter per network, each pair got index 0 and one address
    const tron = await create('TRON', 'TRX')
    const nile = await create('TRON_NILE', 'TRX')
    const solana = await create('SOLANA', 'SOL')
    const devnet = await create('SOLANA_DEVNET', 'SOL')
    expect(nile.generatedAddress).not.toBe(tron.generatedAddress)
    expect(devnet.generatedAddress).not.toBe(solana.generatedAddress)
    // and SPL token accounts, derived from those addresses, differ too
    const usdc = await create('SOLANA', 'USDC')
    const devnetUsdc = await create('SOLANA_DEVNET', 'USDC')
    expect(devnetUsdc.generatedAddress).not.toBe(usdc.generatedAddress)
    const addresses = [tron, nile, solana, devnet, usdc, devnetUsdc].map(
      (payment) => payment.generatedAddress,
    )
    expect(new Set(addresses).size).toBe(addresses.length)
  })
})
