// The deposits part of the call-budget benchmark (docs/benchmarks.md, "Customers' deposit
// addresses"; decisions.md sections 19 and 22): the merchant's customers each have a deposit
// address, and some of them top up their balance each day, the way real wallets and exchanges pay.
// Seeded: the same options give the same deposits.

import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { encodeTronAddress } from '../../../packages/chain-sim/dist/index.js'
import { arrivalsOfDay, seededRandom } from './shop.mjs'

const requireFromTreasury = createRequire(new URL('../../../packages/treasury/package.json', import.meta.url))
const web3 = requireFromTreasury('@solana/web3.js')

/** the customer (merchantUserId) of deposit address `index` */
export const depositUserOf = (index) => `customer-${String(index).padStart(5, '0')}`

/**
 * How customers deposit, with their share. `exchange`: a withdrawal from one of a few exchange hot
 * wallets (the same senders all day); `batch`: an exchange's multisend call paying several
 * withdrawals at once, one of them to the deposit address (TRON); `counterfeit`: a token that is not
 * the registry's (a fake "USDT" contract, a fake "USDC" mint: airdropped scams), which is no deposit.
 * Solana's SPL deposits go to the owner's associated token account, created in the paying
 * transaction when it does not exist yet, as Phantom, Solflare and exchanges send them.
 */
export const DEPOSIT_KINDS = {
  TRON: [
    { kind: 'USDT from a wallet', share: 0.4, currency: 'USDT' },
    { kind: 'USDT from an exchange', share: 0.2, currency: 'USDT', exchange: true },
    { kind: 'USDT in an exchange batch', share: 0.07, currency: 'USDT', exchange: true, batch: true },
    { kind: 'TRX from a wallet', share: 0.13, currency: 'TRX' },
    { kind: 'TRX from an exchange', share: 0.1, currency: 'TRX', exchange: true },
    { kind: 'counterfeit USDT (no deposit)', share: 0.1, currency: 'USDT', counterfeit: true },
  ],
  SOLANA: [
    { kind: 'SOL to the owner, from a wallet', share: 0.2, currency: 'SOL' },
    { kind: 'SOL to the owner, from an exchange', share: 0.1, currency: 'SOL', exchange: true },
    { kind: 'USDC to the token account, from a wallet', share: 0.3, currency: 'USDC' },
    { kind: 'USDC to the token account, from an exchange', share: 0.15, currency: 'USDC', exchange: true },
    { kind: 'USDT to the token account, from a wallet', share: 0.15, currency: 'USDT' },
    { kind: 'counterfeit USDC (no deposit)', share: 0.1, currency: 'USDC', counterfeit: true },
  ],
}

/** how much a customer deposits, in the currency's decimal text */
const AMOUNTS = {
  USDT: { min: 5, max: 2000, decimals: 2 },
  USDC: { min: 5, max: 2000, decimals: 2 },
  TRX: { min: 10, max: 5000, decimals: 1 },
  // above the rent-exempt floor of a fresh address (decisions 12)
  SOL: { min: 0.05, max: 5, decimals: 3 },
}

/**
 * `perDay` deposits a day for `days` days from `startMs` (a midnight), along the shop's daily curve,
 * each by one of `addresses` customers: a few regulars deposit often (a fifth of the deposits come
 * from 1 % of the customers), the rest now and then.
 */
export function planDeposits({ network, startMs, days, perDay, addresses, seed }) {
  const random = seededRandom(seed)
  const kinds = DEPOSIT_KINDS[network]
  const regulars = Math.max(1, Math.floor(addresses / 100))
  const plans = []
  for (let day = 0; day < Math.ceil(days); day++) {
    for (const atMs of arrivalsOfDay(random, startMs + day * 86_400_000, perDay)) {
      const kind = random.pick(kinds)
      const user = Math.floor(random.next() * (random.next() < 0.2 ? regulars : addresses))
      const { min, max, decimals } = AMOUNTS[kind.currency]
      const amount = random
        .between(min, max)
        .toFixed(decimals)
        .replace(/\.?0+$/, '')
      plans.push({ atMs, user, amount, ...kind })
    }
  }
  return plans
}

/** a stable, well-formed address per name */
function tronAddressOf(name) {
  return encodeTronAddress(createHash('sha256').update(name).digest().subarray(0, 20))
}

function solanaAddressOf(name) {
  return new web3.PublicKey(createHash('sha256').update(name).digest()).toBase58()
}

/**
 * The depositors of a mode: `deposit(plan, address)` sends what the plan says to the customer's
 * deposit address and answers the transaction's hash, the currency and whether it is a deposit
 * (a registry asset). `customers` are the shop's (chains.mjs): Solana wallets that sign SPL
 * transfers with the associated token account's creation.
 */
export function createDepositors(mode, sim, customers, random) {
  const network = mode.network
  const exchanges = Array.from({ length: 4 }, (_, index) =>
    mode.chain === 'TRON' ? tronAddressOf(`exchange ${index}`) : solanaAddressOf(`exchange ${index}`),
  )
  const exchange = () => exchanges[Math.floor(random.next() * exchanges.length)]
  const strangers = Array.from({ length: 64 }, (_, index) =>
    mode.chain === 'TRON' ? tronAddressOf(`withdrawer ${index}`) : solanaAddressOf(`withdrawer ${index}`),
  )
  const stranger = () => strangers[Math.floor(random.next() * strangers.length)]
  const counterfeit =
    mode.chain === 'TRON' ? tronAddressOf('counterfeit USDT') : solanaAddressOf('counterfeit USDC')
  const wallets = Array.from({ length: 256 }, (_, index) =>
    mode.chain === 'TRON' ? tronAddressOf(`customer ${index}`) : solanaAddressOf(`customer ${index}`),
  )
  const wallet = () => wallets[Math.floor(random.next() * wallets.length)]

  return async function deposit(plan, address) {
    const { currency, amount } = plan
    if (plan.counterfeit) {
      // to the owner as a wallet sends it: on Solana into its associated token account of the fake mint
      const { txHash } = await sim.submitTransfer(
        network,
        { to: address, amount, currency, contract: counterfeit, from: wallet() },
        { asWallet: true },
      )
      return { txHash, deposit: false }
    }
    if (mode.chain === 'TRON') {
      const from = plan.exchange ? exchange() : wallet()
      const mine = { to: address, amount, currency }
      // an exchange's multisend: the withdrawal among others, at a random place
      const transfers = plan.batch
        ? [stranger(), stranger()].map((to) => ({ to, amount: '12', currency }))
        : []
      transfers.splice(Math.floor(random.next() * (transfers.length + 1)), 0, mine)
      const { txHash } = await sim.submitTransaction(network, { from, transfers })
      return { txHash, deposit: true }
    }
    if (currency === 'SOL') {
      const { txHash } = await sim.submitTransfer(network, {
        to: address,
        amount,
        currency,
        from: plan.exchange ? exchange() : wallet(),
      })
      return { txHash, deposit: true }
    }
    // SPL: signed by a customer's (or an exchange's) wallet, with the token account's creation when
    // it does not exist yet (chains.mjs)
    const txHash = await customers.pay({ created: { address } }, { currency, amount })
    return { txHash, deposit: true }
  }
}
