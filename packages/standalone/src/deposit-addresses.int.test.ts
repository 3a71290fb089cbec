// Customers' deposit addresses in a real standalone, through @chainpay/sdk (docs/api.md, "Deposit
// addresses"): payment-command's context derives them, the gateway answers them, the projection
// lists them, and PER_USER payments on one customer's address are paid one after the other through
// the chain simulator, each watched and confirmed in turn.

import { Chainpay, ChainpayApiError } from '@chainpay/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pay } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

let standalone: InProcessStandalone
let chainpay: Chainpay

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: { now: () => new Date() } })
  const merchant = standalone.demoMerchant()
  chainpay = new Chainpay({
    baseUrl: standalone.baseUrl,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
  })
})

afterAll(async () => {
  await standalone?.stop()
})

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe("a customer's deposit address in standalone", () => {
  it('is the same on every ask, takes PER_USER payments one open at a time, each paid and confirmed', {
    timeout: 60_000,
  }, async ({ onTestFailed }) => {
    // a run that timed out twice in fresh-clone runs (2026-11-28) and never alone: say where it was
    const steps: string[] = []
    const step = (what: string) => steps.push(`${new Date().toISOString()} ${what}`)
    onTestFailed(() => {
      process.stderr.write(
        `deposit-addresses.int steps:\n${steps.join('\n')}\nstandalone's last lines:\n${standalone
          .output()
          .split('\n')
          .slice(-60)
          .join('\n')}\n`,
      )
    })
    const user = `customer-${Date.now()}`
    const first = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'TRON' })
    expect(first).toMatchObject({ merchantUserId: user, chain: 'TRON', created: true })
    const again = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'TRON' })
    expect(again).toEqual({ ...first, created: false })

    const payment = await chainpay.payments.create({
      amount: '7.25',
      currency: 'USDT',
      network: 'TRON',
      addressMode: 'PER_USER',
      merchantUserId: user,
    })
    expect(payment).toMatchObject({
      generatedAddress: first.address,
      addressMode: 'PER_USER',
      merchantUserId: user,
    })
    const busy = await chainpay.payments
      .create({
        amount: '1',
        currency: 'USDT',
        network: 'TRON',
        addressMode: 'PER_USER',
        merchantUserId: user,
      })
      .catch((error: unknown) => error)
    expect(busy).toBeInstanceOf(ChainpayApiError)
    expect(busy).toMatchObject({ status: 409, code: 'ADDRESS_BUSY' })

    step(`first payment ${payment.paymentId} created`)
    step(`paid ${await pay(standalone, 'TRON', { to: first.address, amount: '7.25', currency: 'USDT' })}`)
    const confirmed = await until(
      () => chainpay.payments.get(payment.paymentId),
      (read) => read.status === 'confirmed',
    )
    expect(confirmed).toMatchObject({ status: 'confirmed', receivedAmount: '7.25' })
    step('first payment confirmed')

    // final: the address takes the customer's next payment, watched for it now
    const next = await chainpay.payments.create({
      amount: '3',
      currency: 'USDT',
      network: 'TRON',
      addressMode: 'PER_USER',
      merchantUserId: user,
    })
    expect(next.generatedAddress).toBe(first.address)
    step(`next payment ${next.paymentId} created`)
    step(`paid ${await pay(standalone, 'TRON', { to: first.address, amount: '3', currency: 'USDT' })}`)
    const nextConfirmed = await until(
      () => chainpay.payments.get(next.paymentId),
      (read) => read.status === 'confirmed',
    )
    expect(nextConfirmed).toMatchObject({ status: 'confirmed', receivedAmount: '3' })
    // the first payment kept what it had: the second transfer went to the second payment
    expect(await chainpay.payments.get(payment.paymentId)).toMatchObject({ receivedAmount: '7.25' })

    const listed = await chainpay.depositAddresses.list({ merchantUserId: user })
    expect(listed.data).toEqual([
      { merchantUserId: user, chain: 'TRON', address: first.address, createdAt: first.createdAt },
    ])
  })
})
