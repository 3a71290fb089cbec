// Standalone live (CHAIN_MODE=rpc, docs/going-live.md): the one process watches TRON and Solana
// nodes it reaches over HTTP, through the real tronweb and @solana/web3.js clients, exactly as it
// watches Nile and devnet or mainnet. The nodes here are the chain simulator served on a port of its
// own, in java-tron's and Solana's JSON-RPC shapes; the networks are the test networks by name.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { simulatedWalletAddress } from '@chainpay/chain-sim'
import { type SimulatorNode, solanaWallet, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { generateAdminToken } from '@chainpay/platform'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { createMerchantClient, type MerchantClient, verifyWebhook } from '@chainpay/test-client'
import { createDevelopmentWallet } from '@chainpay/wallet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaymentBody, waitForPayment } from './testing/flow.js'
import { startInProcessStandalone } from './testing/standalone-in-process.js'
import { newDataDir, type StandaloneProcess, startStandalone } from './testing/standalone-process.js'

let node: SimulatorNode
let standalone: StandaloneProcess
let receiver: WebhookReceiver
let client: MerchantClient
let webhookSecret: string
const adminToken = generateAdminToken()
/** the operator's treasury (TREASURY_ADDRESSES): what it sends is nobody's funds */
const treasury = simulatedWalletAddress('SOLANA')

beforeAll(async () => {
  node = await startSimulatorNode({
    networks: [
      { network: 'TRON_NILE', blockIntervalMs: 40 },
      { network: 'SOLANA_DEVNET', blockIntervalMs: 30 },
    ],
  })
  node.simulator.start()
  receiver = await startWebhookReceiver()
  // the operator's key material: a watch-only TRON xpub and the Solana seed, here from a wallet file
  const dataDir = newDataDir()
  const walletFile = join(dataDir, 'wallet.json')
  writeFileSync(walletFile, JSON.stringify(createDevelopmentWallet()), { mode: 0o600 })
  standalone = await startStandalone({
    dataDir,
    env: {
      CHAIN_MODE: 'rpc',
      // the customer's page on this machine: a trial, as going-live.md's first run
      ALLOW_LOOPBACK_PUBLIC_URL: 'true',
      CHAIN_NETWORKS: 'TRON_NILE,SOLANA_DEVNET',
      TRON_NILE_RPC_URL: node.tronUrl('TRON_NILE'),
      SOLANA_DEVNET_RPC_URL: node.solanaUrl('SOLANA_DEVNET'),
      TRON_NILE_POLL_INTERVAL_MS: '100',
      SOLANA_DEVNET_POLL_INTERVAL_MS: '100',
      WALLET_FILE: walletFile,
      ADMIN_TOKEN: adminToken,
      // the receiver is on loopback over http: production rules would refuse it (as they must)
      CALLBACK_URL_POLICY: 'development',
      TREASURY_ADDRESSES: treasury,
    },
  })
  const merchant = await createMerchant(standalone.adminUrl)
  webhookSecret = merchant.webhookSecret
  client = createMerchantClient({ baseUrl: standalone.apiUrl, ...merchant })
}, 60_000)

/** live, there is no demo merchant: the operator creates merchants with the admin API or the CLI */
async function createMerchant(adminUrl: string) {
  const response = await fetch(`${adminUrl}/admin/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Live shop' }),
  })
  expect(response.status).toBe(201)
  return (await response.json()) as { apiKey: string; apiSecret: string; webhookSecret: string }
}

afterAll(async () => {
  await standalone?.stop()
  await receiver?.close()
  await node?.close()
})

/** the customer's transfer, made on the node (its development route), not through chainpay */
async function payOnTheNode(network: string, transfer: { to: string; amount: string; currency: string }) {
  const response = await fetch(`${node.url}/dev/chains/${network}/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(transfer),
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { txHash: string }).txHash
}

describe('standalone on real nodes (CHAIN_MODE=rpc)', () => {
  it.each([
    ['TRON_NILE', 'USDT', 20],
    ['SOLANA_DEVNET', 'USDC', 32],
  ] as const)(
    'confirms a %s %s payment read through the RPC client and delivers verified webhooks',
    async (network, currency, confirmations) => {
      const response = await client.createPayment({
        amount: '12.5',
        currency,
        network,
        callbackUrl: receiver.url,
      } as never)
      expect(response.status).toBe(201)
      const created = response.body as PaymentBody
      const txHash = await payOnTheNode(network, {
        to: created.generatedTokenAccount ?? created.generatedAddress,
        amount: '12.5',
        currency,
      })
      const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
      expect(confirmed).toMatchObject({ receivedAmount: '12.5', txHash, confirmations })

      const webhooks = await receiver.waitFor((all) =>
        all.some((w) => w.body.payment.id === created.paymentId && w.body.event === 'payment.confirmed'),
      )
      const delivered = webhooks.filter((w) => w.body.payment.id === created.paymentId)
      expect(delivered.map((w) => w.body.event)).toEqual([
        'payment.pending',
        'payment.transfer_detected',
        'payment.confirmed',
      ])
      for (const webhook of delivered) {
        const signed = {
          rawBody: webhook.rawBody,
          signature: webhook.headers['x-signature'] ?? '',
          timestamp: webhook.headers['x-timestamp'] ?? '',
          eventId: webhook.headers['x-event-id'] ?? '',
        }
        expect(verifyWebhook(webhookSecret, signed, Math.floor(Date.now() / 1000))).toEqual({ ok: true })
      }
    },
    60_000,
  )

  it('reports every unit wallets send to a Solana payment’s address, and nothing that is not money (decisions 19)', async () => {
    const network = 'SOLANA_DEVNET'
    const created = async (amount: string, currency: string) => {
      const response = await client.createPayment({
        amount,
        currency,
        network,
        callbackUrl: receiver.url,
      } as never)
      expect(response.status).toBe(201)
      return response.body as PaymentBody
    }
    const usdc = await created('12.5', 'USDC')
    const sol = await created('1', 'SOL')
    const wallet = await solanaWallet(node, network)
    // another token account of the owner than the associated one: it counts (decisions 16)
    const other = await node.simulator.openTokenAccount(network, {
      owner: usdc.generatedAddress,
      currency: 'USDC',
    })
    // as Phantom pays: the owner's associated token account created in the transaction, its rent
    // paid by the wallet; and SOL to the USDC payment's owner, foreign funds
    await wallet.pay([
      { to: usdc.generatedAddress, amount: '10', currency: 'USDC' },
      { to: usdc.generatedAddress, amount: '2.5', currency: 'USDC', tokenAccount: other.address },
      { to: usdc.generatedAddress, amount: '0.01', currency: 'SOL' },
    ])
    // USDC to the SOL payment's owner: foreign funds, in a token account the transaction creates
    await wallet.pay([
      { to: sol.generatedAddress, amount: '1', currency: 'SOL' },
      { to: sol.generatedAddress, amount: '3', currency: 'USDC' },
    ])
    // a sweep's top-up from the treasury: nobody's funds
    await node.simulator.submitTransfer(network, {
      from: treasury,
      to: usdc.generatedAddress,
      amount: '0.02',
      currency: 'SOL',
    })

    const settledUsdc = await waitForPayment(
      client,
      usdc.paymentId,
      (p) =>
        p.status === 'confirmed' && (p as unknown as { foreignFunds: unknown[] }).foreignFunds.length > 0,
    )
    expect(settledUsdc).toMatchObject({
      receivedAmount: '12.5',
      foreignFunds: [{ currency: 'SOL', amount: '0.01' }],
    })
    const settledSol = await waitForPayment(
      client,
      sol.paymentId,
      (p) =>
        p.status === 'confirmed' && (p as unknown as { foreignFunds: unknown[] }).foreignFunds.length > 0,
    )
    expect(settledSol).toMatchObject({
      receivedAmount: '1',
      foreignFunds: [{ currency: 'USDC', amount: '3' }],
    })

    const webhooks = await receiver.waitFor((all) =>
      [usdc, sol].every((payment) =>
        all.some((w) => w.body.payment.id === payment.paymentId && w.body.event === 'payment.foreign_funds'),
      ),
    )
    const foreignOf = (payment: PaymentBody) =>
      webhooks
        .filter((w) => w.body.payment.id === payment.paymentId && w.body.event === 'payment.foreign_funds')
        .map(
          (w) =>
            (w.body.payment as unknown as { foreign_funds: { currency: string; amount: string } })
              .foreign_funds,
        )
    // the rent and the top-up are in none: one each, the customers'
    expect(foreignOf(usdc)).toEqual([expect.objectContaining({ currency: 'SOL', amount: '0.01' })])
    expect(foreignOf(sol)).toEqual([expect.objectContaining({ currency: 'USDC', amount: '3' })])
  }, 60_000)

  it('serves no simulator: the chains are the nodes’, nobody can fake a transfer through chainpay', async () => {
    const fake = await fetch(`${standalone.baseUrl}/dev/chains/TRON_NILE/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx', amount: '1', currency: 'USDT' }),
    })
    expect(fake.status).toBe(404)
    expect((await fetch(`${standalone.baseUrl}/readyz`)).status).toBe(200)
  })

  it('takes payments on the networks it watches only', async () => {
    const response = await client.createPayment({ amount: '1', currency: 'USDT', network: 'TRON' } as never)
    expect(response.status).toBe(400)
    expect((response.body as { error: { code: string } }).error.code).toBe('UNSUPPORTED_ASSET')
  })
})

describe('standalone on real nodes, under the production rules it takes by default', () => {
  it('refuses a callback URL that is not https or points at a private address (docs/api.md, "POST /payments")', async () => {
    const wallet = createDevelopmentWallet()
    const live = await startInProcessStandalone({
      clock: { now: () => new Date() },
      env: {
        CHAIN_MODE: 'rpc',
        PUBLIC_URL: 'https://pay.shop.example',
        CHAIN_NETWORKS: 'TRON_NILE',
        TRON_NILE_RPC_URL: node.tronUrl('TRON_NILE'),
        TRON_ACCOUNT_XPUB: wallet.tronAccountXpub,
        SOLANA_SEED: wallet.solanaSeed,
        ADMIN_TOKEN: adminToken,
      },
    })
    try {
      const merchant = await createMerchant(live.adminUrl)
      const shop = createMerchantClient({ baseUrl: live.apiUrl, ...merchant })
      const create = (callbackUrl: string) =>
        shop.createPayment({ amount: '1', currency: 'USDT', network: 'TRON_NILE', callbackUrl } as never)
      expect((await create(receiver.url)).body).toEqual({
        error: { code: 'VALIDATION_ERROR', message: 'callbackUrl: must use https' },
      })
      expect((await create('https://10.0.0.7/hooks')).body).toEqual({
        error: { code: 'VALIDATION_ERROR', message: 'callbackUrl: must not point at a private address' },
      })
      expect((await create('https://shop.example/hooks')).status).toBe(201)
    } finally {
      await live.stop()
    }
  })
})
